package gen

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// GenerateChain writes one session that is a single chain of n small
// entries: the first prompt and the first text answer of the template
// multi-turn.jsonl, alternating, each with a fresh uuid chained to the one
// before (and a fresh message id for answers). It is the worst case for
// per-entry costs: about 1,000 bytes per entry, so 300 MB holds some
// 300,000 entries and 1,000,000 entries make about 1 GB.
func GenerateChain(o Options, n int) (*Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	lines, err := readLines(filepath.Join(o.Templates, "multi-turn.jsonl"))
	if err != nil {
		return nil, err
	}
	var prompt, answer []byte
	for _, l := range lines {
		r := gjson.ParseBytes(l)
		switch {
		case prompt == nil && r.Get("type").Str == "user" && !r.Get("isMeta").Bool() && r.Get("message.content").Type == gjson.String:
			prompt = l
		case answer == nil && r.Get("type").Str == "assistant" && r.Get("message.content.0.type").Str == "text":
			answer = l
		}
	}
	if prompt == nil || answer == nil {
		return nil, fmt.Errorf("%s: no prompt or no text answer to repeat", o.Templates)
	}
	g := &generator{o: o, rng: rand.New(rand.NewSource(o.Seed))}
	g.sessionID = g.uuid()
	clock := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	proj := filepath.Join(o.Dir, "projects", o.Project)
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(proj, g.sessionID+".jsonl")
	fh, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	cw := &countWriter{w: fh}
	w := bufio.NewWriterSize(cw, 1<<20)
	parent := ""
	for i := 0; i < n; i++ {
		line := prompt
		if i%2 == 1 {
			line = answer
		}
		id := g.uuid()
		set := func(k string, v any) {
			if err == nil {
				line, err = sjson.SetBytes(line, k, v)
			}
		}
		set("uuid", id)
		if parent == "" {
			set("parentUuid", nil)
		} else {
			set("parentUuid", parent)
		}
		set("sessionId", g.sessionID)
		set("timestamp", clock.Format("2006-01-02T15:04:05.000Z"))
		if i%2 == 1 {
			set("message.id", "msg_"+g.randStr(24, alnum))
			set("requestId", "req_"+g.randStr(24, alnum))
		}
		if err != nil {
			fh.Close()
			return nil, err
		}
		_, _ = w.Write(line)
		_ = w.WriteByte('\n')
		parent = id
		clock = clock.Add(time.Duration(1+g.rng.Intn(5)) * time.Second)
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return nil, err
	}
	if err := fh.Close(); err != nil {
		return nil, err
	}
	_ = os.Chtimes(path, clock, clock)
	return &Result{SessionID: g.sessionID, Path: path, Bytes: cw.n, End: clock}, nil
}
