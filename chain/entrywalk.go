package chain

import (
	"bytes"
	"fmt"
	"os"
)

// EntryFields reads one line of a transcript (its terminator excluded;
// first marks the file's first line, where a byte order mark may stand)
// as the loader does: it returns the line's Kind (KindEntry: a JSON
// object, valid as a whole; KindBlank; KindInvalid) and, as it validates it,
// calls fn with each top-level key (decoded) and the bounds of its value
// in line, in order. fn is called before the line is known to be valid:
// what it gathers must be dropped unless EntryFields returns KindEntry.
//
// It is the loader's check without its index: a pass that rewrites every
// line of a file it does not index (a plain clone) takes the same lines
// for entries and leaves the others byte for byte, as a writer over the
// index does (File.Write transforms entry lines only).
// TestEntryFieldsIsTheLoadersKind holds it to the loader.
func EntryFields(line []byte, first bool, fn func(key string, vs, ve int)) Kind {
	parse, off := line, 0
	if first && bytes.HasPrefix(parse, bom) {
		parse, off = parse[len(bom):], len(bom)
	}
	i := skipWS(parse, 0)
	if i >= len(parse) || parse[i] != '{' {
		if len(bytes.TrimSpace(parse)) == 0 {
			return KindBlank
		}
		return KindInvalid
	}
	var mb [maskStack]uint64
	m, pooled := lineMasks(parse, &mb)
	if pooled != nil {
		defer maskPool.Put(pooled)
	}
	end := vFields(parse, m, i, 0, func(k string, vs int) int {
		ve := -1
		if parse[vs] == '"' { // most values of an envelope: no call for them
			ve = plainEnd(parse, m, vs)
		}
		if ve < 0 {
			ve = vSkip(parse, m, vs, 1)
		}
		if ve >= 0 {
			fn(k, off+vs, off+ve)
		}
		return ve
	})
	if end < 0 || skipWS(parse, end) != len(parse) {
		return KindInvalid
	}
	return KindEntry
}

// MaxLine is the longest line the loader reads (its index holds lengths
// as int32): a file with a longer line is refused (errLineTooLong).
const MaxLine = maxLine

// LineTooLong is the loader's refusal of a line longer than MaxLine
// starting at byte off.
func LineTooLong(off int64) error { return errLineTooLong(off) }

// CheckLines is the loader's refusal of a block of lines (starting at byte
// off of its file) one of which is longer than MaxLine.
func CheckLines(data []byte, off int64) error {
	if len(data) > maxLine && longestLine(data) > maxLine {
		return errLineTooLong(off)
	}
	return nil
}

// SessionIDOf decodes the raw JSON value of a sessionId field as the
// index reads it (Entry.SessionID): a string's text, "" for any other
// value.
func SessionIDOf(raw []byte) string { return strValue(b2s(raw)) }

// OpenShared opens a transcript for reading as the loader does (on
// Windows, sharing delete access: the client may rename it meanwhile): a
// regular file (or a folder, which the caller refuses in its words),
// never a named pipe, a device or a socket, and without waiting on one.
func OpenShared(path string) (*os.File, error) { return openShared(path) }

// nodeOnly keeps fh, opened at path, when it is a regular file or a
// folder, and else closes it: a *Error naming what it is.
func nodeOnly(path string, fh *os.File) (*os.File, error) {
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if m := st.Mode(); !m.IsRegular() && !m.IsDir() {
		fh.Close()
		return nil, &Error{Msg: fmt.Sprintf("%s is not a regular file (%s)", path, NodeKind(m)), Hint: notRegularHint}
	}
	return fh, nil
}

// NodeKind names what a node that is not a regular file is ("a named
// pipe", …; "" for a regular file): the one wording of every refusal of
// one (backup.NodeKind, nodeOnly).
func NodeKind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
