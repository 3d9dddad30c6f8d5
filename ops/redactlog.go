package ops

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
)

// RedactionLog is the list of the secrets redact-secrets found, for the
// report. A session dense with secrets has millions of them, so the list
// is not kept as values: each is a small binary record (strings by number),
// held in memory up to redactLogMem bytes and in an unnamed scratch file
// beyond. Len and ByRule are counted as records are added.
type RedactionLog struct {
	n      int
	byStr  []int // secrets by the index of their rule's name
	strs   []string
	strIdx map[string]uint32
	buf    []byte
	spill  *os.File
	spillW *bufio.Writer
	err    error
}

// redactLogMem is how many bytes of records are kept in memory before they
// go to a scratch file (a variable so that tests can make it small).
var redactLogMem = 1 << 20

const redactRecLen = 4 + 4 + 4 + 4 + 4 + 4 + 1 // file, field, rule, line, number, fingerprint, flags

// add appends a secret of rule found in field of line of file: number is
// its placeholder's number (0: not replaced), sum the start of its
// SHA-256 (the first 4 bytes are its fingerprint).
func (l *RedactionLog) add(file, field, rule string, line int, number uint32, sum [16]byte, thinking bool) {
	l.addIdx(l.str(file), l.str(field), l.str(rule), line, number, sum, thinking)
}

// addIdx is add with the strings given by their index (str).
func (l *RedactionLog) addIdx(file, field, rule uint32, line int, number uint32, sum [16]byte, thinking bool) {
	var rec [redactRecLen]byte
	binary.LittleEndian.PutUint32(rec[0:], file)
	binary.LittleEndian.PutUint32(rec[4:], field)
	binary.LittleEndian.PutUint32(rec[8:], rule)
	binary.LittleEndian.PutUint32(rec[12:], uint32(line))
	binary.LittleEndian.PutUint32(rec[16:], number)
	copy(rec[20:24], sum[:4])
	if thinking {
		rec[24] = 1
	}
	l.n++
	for int(rule) >= len(l.byStr) {
		l.byStr = append(l.byStr, 0)
	}
	l.byStr[rule]++
	l.buf = append(l.buf, rec[:]...)
	if len(l.buf) >= redactLogMem {
		l.flush()
	}
}

func (l *RedactionLog) fail(err error) {
	if l.err == nil {
		l.err = err
	}
}

func (l *RedactionLog) str(s string) uint32 {
	if k, ok := l.strIdx[s]; ok {
		return k
	}
	if l.strIdx == nil {
		l.strIdx = map[string]uint32{}
	}
	k := uint32(len(l.strs))
	l.strs = append(l.strs, s)
	l.strIdx[s] = k
	return k
}

func (l *RedactionLog) flush() {
	if l.err != nil {
		l.buf = l.buf[:0]
		return
	}
	if l.spill == nil {
		f, err := os.CreateTemp("", "ccsurgeon-redactions-*")
		if err != nil {
			l.fail(fmt.Errorf("cannot make a scratch file for the list of redactions: %w", err))
			return
		}
		_ = os.Remove(f.Name()) // where the system allows it, the file has no name from now on
		l.spill, l.spillW = f, bufio.NewWriterSize(f, 1<<16)
	}
	if _, err := l.spillW.Write(l.buf); err != nil {
		l.fail(fmt.Errorf("cannot write the list of redactions to a scratch file: %w", err))
	}
	l.buf = l.buf[:0]
}

// Len is the number of secrets in the list.
func (l *RedactionLog) Len() int {
	if l == nil {
		return 0
	}
	return l.n
}

// ByRule counts the secrets in the list by rule.
func (l *RedactionLog) ByRule() map[string]int {
	out := map[string]int{}
	if l != nil {
		for k, n := range l.byStr {
			if n > 0 {
				out[l.strs[k]] = n
			}
		}
	}
	return out
}

// Err is the first error of keeping the list (a full disk).
func (l *RedactionLog) Err() error {
	if l == nil {
		return nil
	}
	return l.err
}

// RedactionRec is a secret of the list as it is kept: its strings are the
// list's own (not copied), its placeholder and fingerprint numbers (see
// AppendPlaceholder; Number 0: not replaced).
type RedactionRec struct {
	File, Field, Rule string
	Line              int
	Number            uint32
	Fingerprint       [4]byte // the first bytes of the secret's SHA-256
	InThinking        bool
	// FileNum, FieldNum and RuleNum number File, Field and Rule in the
	// list: one string, one number (an encoder of millions of records
	// can keep what it made of each string by its number, without hashing
	// the string)
	FileNum, FieldNum, RuleNum uint32
}

// AppendPlaceholder appends the placeholder that replaced the secret
// (nothing if it was left in place).
func (r *RedactionRec) AppendPlaceholder(b []byte) []byte {
	if r.Number == 0 {
		return b
	}
	return appendPlaceholder(b, r.Rule, int(r.Number))
}

// Redaction is the record as a report value.
func (r *RedactionRec) Redaction() Redaction {
	out := Redaction{File: r.File, Field: r.Field, Rule: r.Rule, Line: r.Line,
		Fingerprint: hex.EncodeToString(r.Fingerprint[:]), InThinking: r.InThinking}
	if r.Number > 0 {
		out.Placeholder = placeholderOf(r.Rule, int(r.Number))
	}
	return out
}

func (l *RedactionLog) decode(r *RedactionRec, rec []byte) {
	file, field, rule := binary.LittleEndian.Uint32(rec[0:]), binary.LittleEndian.Uint32(rec[4:]), binary.LittleEndian.Uint32(rec[8:])
	*r = RedactionRec{
		File:       l.strs[file],
		Field:      l.strs[field],
		Rule:       l.strs[rule],
		Line:       int(binary.LittleEndian.Uint32(rec[12:])),
		Number:     binary.LittleEndian.Uint32(rec[16:]),
		InThinking: rec[24] == 1,
		FileNum:    file,
		FieldNum:   field,
		RuleNum:    rule,
	}
	copy(r.Fingerprint[:], rec[20:24])
}

// chunks calls fn with the records of the list in order, a few at a time
// (whole records; fn may keep the slice).
func (l *RedactionLog) chunks(per int, fn func(recs []byte) (bool, error)) error {
	if l.spill != nil {
		if err := l.spillW.Flush(); err != nil {
			return fmt.Errorf("cannot write the list of redactions to a scratch file: %w", err)
		}
		br := bufio.NewReaderSize(io.NewSectionReader(l.spill, 0, 1<<62), 1<<16)
		for {
			recs := make([]byte, per*redactRecLen)
			n, err := io.ReadFull(br, recs)
			if n%redactRecLen != 0 || err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
				if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("cannot read the list of redactions back: %w", err)
			}
			if n > 0 {
				if more, err := fn(recs[:n]); err != nil || !more {
					return err
				}
			}
			if n < len(recs) {
				break
			}
		}
	}
	for k := 0; k < len(l.buf); k += per * redactRecLen {
		if more, err := fn(l.buf[k:min(len(l.buf), k+per*redactRecLen)]); err != nil || !more {
			return err
		}
	}
	return nil
}

// Each calls fn with every secret of the list, in the order they were
// added, until fn returns false or an error.
func (l *RedactionLog) Each(fn func(Redaction) (bool, error)) error {
	if l == nil {
		return nil
	}
	if l.err != nil {
		return l.err
	}
	var r RedactionRec
	return l.chunks(1024, func(recs []byte) (bool, error) {
		for k := 0; k < len(recs); k += redactRecLen {
			l.decode(&r, recs[k:])
			if more, err := fn(r.Redaction()); err != nil || !more {
				return false, err
			}
		}
		return true, nil
	})
}

// redactWriteBatch is how many records WriteEach hands a goroutine at a
// time (a variable so that tests can make it small).
var redactWriteBatch = 2048

// WriteEach writes to w what an encoder makes of every secret of the list,
// in the order they were added (k: the record's place in the list, from
// 0). The records are encoded on every core, a batch at a time, each
// goroutine with its own encoder from newEnc: a session dense with secrets
// lists millions of them, and its report was the serial tail of the
// command.
func (l *RedactionLog) WriteEach(w io.Writer, newEnc func() func(b []byte, k int, r *RedactionRec) []byte) error {
	if l == nil {
		return nil
	}
	if l.err != nil {
		return l.err
	}
	type batch struct {
		k    int
		recs []byte
		out  chan []byte
	}
	workers := runtime.GOMAXPROCS(0)
	todo := make(chan *batch)
	order := make(chan *batch, 2*workers)
	// the written batches' buffers are used again (as many as can be in
	// flight): a million secrets make hundreds of MB of report
	free := make(chan []byte, 3*workers+1)
	for range workers {
		go func() {
			enc := newEnc()
			var r RedactionRec
			for bt := range todo {
				var b []byte
				select {
				case b = <-free:
				default:
				}
				for off := 0; off < len(bt.recs); off += redactRecLen {
					l.decode(&r, bt.recs[off:])
					b = enc(b, bt.k+off/redactRecLen, &r)
				}
				bt.out <- b
			}
		}()
	}
	readErr := make(chan error, 1)
	go func() {
		defer close(order)
		defer close(todo)
		k := 0
		readErr <- l.chunks(redactWriteBatch, func(recs []byte) (bool, error) {
			bt := &batch{k, recs, make(chan []byte, 1)}
			order <- bt // the writer takes the batches in this order
			todo <- bt
			k += len(recs) / redactRecLen
			return true, nil
		})
	}()
	var werr error
	for bt := range order {
		b := <-bt.out
		if werr == nil {
			_, werr = w.Write(b)
		}
		select {
		case free <- b[:0]:
		default:
		}
	}
	if err := <-readErr; err != nil {
		return err
	}
	return werr
}

// Slice returns the whole list as values (for small sessions and tests).
func (l *RedactionLog) Slice() ([]Redaction, error) {
	var out []Redaction
	err := l.Each(func(r Redaction) (bool, error) { out = append(out, r); return true, nil })
	return out, err
}

// Close lets the scratch file go.
func (l *RedactionLog) Close() {
	if l != nil && l.spill != nil {
		name := l.spill.Name()
		_ = l.spill.Close()
		_ = os.Remove(name) // where it could not go while open
		l.spill = nil
	}
}

// placeholderOf is the placeholder of the n-th distinct secret of a rule.
func placeholderOf(rule string, n int) string {
	return string(appendPlaceholder(nil, rule, n))
}

// appendPlaceholder appends placeholderOf(rule, n) to b.
func appendPlaceholder(b []byte, rule string, n int) []byte {
	b = append(b, "[REDACTED:"...)
	b = append(b, rule...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, ']')
}
