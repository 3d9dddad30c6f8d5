package gen

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// GenerateDamaged writes a dense session (GenerateDense) and then damages
// it the ways a session file is damaged by crashes, bad tools and hand
// edits, many times over, so that validate and repair meet thousands of
// problems at once:
//   - every 7th line is lost (its children's parentUuid names nothing);
//   - every 11th entry names itself as parent;
//   - every 13th line is written twice (a duplicate uuid);
//   - every 17th line is cut in half (not JSON);
//   - every 50th entry's parent is an entry a few lines later, and that
//     one's parent the first (a loop of parents);
//   - the last line is torn (no newline, cut short).
func GenerateDamaged(o Options) (*Result, error) {
	o.Size += o.Size / 4 // about a sixth of the bytes is lost below
	r, err := GenerateDense(o)
	if err != nil {
		return nil, err
	}
	in, err := os.Open(r.Path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	tmp := r.Path + ".damaged"
	out, err := os.Create(tmp)
	if err != nil {
		return nil, err
	}
	cw := &countWriter{w: out}
	w := bufio.NewWriterSize(cw, 1<<20)
	br := bufio.NewReaderSize(in, 1<<20)
	var pending [][]byte // lines held back to close a loop with a later one
	var loopHead string  // uuid of the entry whose parent will be a later one
	n, lastLen := 0, 0
	put := func(l []byte) {
		w.Write(l)
		w.WriteByte('\n')
		lastLen = len(l)
	}
	for {
		line, rerr := br.ReadBytes('\n')
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) > 0 {
			n++
			uuid := gjson.GetBytes(line, "uuid").Str
			switch {
			case n%7 == 0:
				line = nil // lost
			case n%17 == 0:
				line = line[:len(line)/2]
			case n%11 == 0 && uuid != "":
				line, _ = sjson.SetBytes(line, "parentUuid", uuid)
			case n%50 == 0 && uuid != "":
				loopHead = uuid
				pending = append(pending, line)
				line = nil
			case loopHead != "" && uuid != "" && len(pending) > 0 && len(pending) < 4:
				pending = append(pending, line)
				line = nil
			case loopHead != "" && uuid != "" && len(pending) >= 4:
				// the held entry's parent is this one; this one's parent the held one
				head, _ := sjson.SetBytes(pending[0], "parentUuid", uuid)
				line, _ = sjson.SetBytes(line, "parentUuid", loopHead)
				pending[0] = head
				for _, p := range pending {
					put(p)
				}
				pending, loopHead = nil, ""
			}
			if line != nil {
				put(line)
				if n%13 == 0 {
					put(line)
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			out.Close()
			return nil, rerr
		}
	}
	for _, p := range pending {
		put(p)
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return nil, err
	}
	// the torn last line: its last third and its newline are gone
	cw.n -= int64(lastLen/3 + 1)
	if err := out.Truncate(cw.n); err != nil {
		out.Close()
		return nil, err
	}
	if err := out.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, r.Path); err != nil {
		return nil, err
	}
	_ = os.Chtimes(r.Path, r.End, r.End)
	r.Bytes = cw.n
	return r, nil
}

func init() {
	RegisterShape(Shape{Name: "damaged", Generate: GenerateDamaged,
		Damaged: []string{"dangling-parent", "self-parent", "duplicate-uuid", "invalid-json", "parent-cycle", "torn-final-line"},
		Doc:     "the dense shape damaged many times over: lost lines (dangling parents), self-parents, duplicates, lines cut in half, loops of parents, a torn last line"})
}
