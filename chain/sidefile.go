package chain

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxSideFile is the most ReadSideFile reads. The files it reads are small
// JSON documents the client writes (a sessions-index.json of thousands of
// sessions is a few MB).
const MaxSideFile = 64 << 20

// ReadSideFile is the one reader of a file the client keeps beside its
// sessions and reads by name: a subagent's meta.json, a project's
// sessions-index.json, the registry of running clients sessions/<pid>.json,
// settings.json, and ccsurgeon's own bookkeeping. It reads only a regular
// file (a link to one is followed: reading through it writes nothing),
// opens it without blocking on a FIFO and reads at most MaxSideFile
// bytes. What is not a regular file (a FIFO, a socket, a device, a
// folder, or a link to one) or is larger is an *Error saying so, read no
// further: the callers take it as a file that is not there.
func ReadSideFile(path string) ([]byte, error) {
	fh, st, err := OpenSideFile(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st.Size() > MaxSideFile {
		return nil, &Error{Msg: fmt.Sprintf("%s is %d bytes, more than the %d read of a file beside the sessions", path, st.Size(), MaxSideFile)}
	}
	b, err := io.ReadAll(io.LimitReader(fh, MaxSideFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSideFile {
		return nil, &Error{Msg: fmt.Sprintf("%s grew past the %d read of a file beside the sessions", path, MaxSideFile)}
	}
	return b, nil
}

// OpenSideFile opens a side file as ReadSideFile does (a regular file
// only, without blocking on a FIFO) for a caller that streams it, with no
// bound on its size: the client's history.jsonl grows with every prompt.
func OpenSideFile(path string) (*os.File, os.FileInfo, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, nil, &Error{Msg: fmt.Sprintf("%s is not a regular file", path)}
	}
	return fh, st, nil
}

// EachLine calls fn with each line of r (without its line end) that holds
// no NUL byte and is at most max bytes long; the others are passed over
// as they are read, never held whole: a run of NULs a crash left (a
// sparse file of gigabytes) costs no memory. fn must not keep line.
func EachLine(r io.Reader, max int, fn func(line []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	skip := false // the line read is passed over
	for {
		part, err := br.ReadSlice('\n')
		if !skip && bytes.IndexByte(part, 0) >= 0 {
			skip, long = true, nil
		}
		if !skip {
			long = append(long, part...)
			if len(long) > max+1 {
				skip, long = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !skip && len(long) > 0 {
			fn(bytes.TrimRight(long, "\r\n"))
		}
		skip, long = false, long[:0]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
