package chain

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// File is one JSONL file of a session (the main transcript or a subagent's)
// as an index of its lines. The bytes stay in the source and are read back
// on demand.
type File struct {
	Path    string
	Size    int64
	Entries []Entry
	BOM     bool // the first line starts with a UTF-8 byte order mark
	// Sidechain marks a subagent transcript, whose entries are all sidechain.
	Sidechain bool

	src    io.ReaderAt
	closer io.Closer
	graph  *Graph
}

// LoadFile indexes the JSONL file at path. The file stays open until Close.
func LoadFile(path string) (*File, error) { return LoadFileWith(path, nil) }

// LoadFileWith is LoadFile reporting the bytes read to progress (may be nil).
func LoadFileWith(path string, progress func(n int64)) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if st.IsDir() {
		fh.Close()
		return nil, &Error{Msg: fmt.Sprintf("%s is a directory, not a session file", path), Hint: "give a session id or the path of a .jsonl file", Code: 1}
	}
	f := &File{Path: path, Size: st.Size(), src: fh, closer: fh}
	var r io.Reader = io.NewSectionReader(fh, 0, st.Size())
	if progress != nil {
		r = &progressReader{r: r, fn: progress}
	}
	if err := f.index(r); err != nil {
		fh.Close()
		return nil, err
	}
	return f, nil
}

// LoadBytes indexes an in-memory JSONL document (tests, stdin).
func LoadBytes(path string, data []byte) (*File, error) {
	f := &File{Path: path, Size: int64(len(data)), src: bytes.NewReader(data)}
	if err := f.index(bytes.NewReader(data)); err != nil {
		return nil, err
	}
	return f, nil
}

// Close releases the file handle.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Raw returns the bytes of entry i, terminator excluded. The slice is fresh.
func (f *File) Raw(i int) ([]byte, error) {
	e := &f.Entries[i]
	b := make([]byte, e.Len)
	if _, err := f.src.ReadAt(b, e.Off); err != nil && !(errors.Is(err, io.EOF) && e.Len == len(b)) {
		return nil, fmt.Errorf("read %s line %d: %w", f.Path, e.Line, err)
	}
	return b, nil
}

// Source returns the reader the file's bytes come from.
func (f *File) Source() io.ReaderAt { return f.src }

const readBuf = 1 << 20

func (f *File) index(r io.Reader) error {
	br := bufio.NewReaderSize(r, readBuf)
	var off int64
	var long []byte
	lineNo := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			long = append(long, chunk...)
			line = long
		}
		if len(line) > 0 {
			lineNo++
			f.addLine(lineNo, off, line)
			off += int64(len(line))
		}
		long = long[:0]
		if long != nil && cap(long) > 4*readBuf {
			long = nil // do not pin a huge buffer
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("read %s: %w", f.Path, err)
		}
	}
	f.Size = off
	return nil
}

var bom = []byte{0xEF, 0xBB, 0xBF}

func (f *File) addLine(lineNo int, off int64, line []byte) {
	e := Entry{Line: lineNo, Off: off}
	body := line
	if n := len(body); n > 0 && body[n-1] == '\n' {
		e.EOL = 1
		body = body[:n-1]
		if n := len(body); n > 0 && body[n-1] == '\r' {
			e.EOL = 2
			body = body[:n-1]
		}
	}
	e.Len = len(body)
	parse := body
	if lineNo == 1 && bytes.HasPrefix(parse, bom) {
		f.BOM = true
		parse = parse[len(bom):]
	}
	switch {
	case len(bytes.TrimSpace(parse)) == 0:
		e.Kind = KindBlank
	case parseEnvelope(&e, parse):
		e.Kind = KindEntry
	default:
		e.Kind = KindInvalid
		e.ParseErr = describeInvalid(parse)
	}
	f.Entries = append(f.Entries, e)
}

func describeInvalid(b []byte) string {
	t := bytes.TrimSpace(b)
	switch {
	case bytes.IndexByte(b, 0) >= 0:
		return "line holds NUL bytes and is not valid JSON"
	case len(t) > 0 && t[0] != '{':
		if json := isValidJSON(t); json {
			return "line is JSON but not an object"
		}
		return "line is not valid JSON"
	default:
		return "line is not valid JSON"
	}
}

type progressReader struct {
	r  io.Reader
	fn func(int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.fn(int64(n))
	return n, err
}
