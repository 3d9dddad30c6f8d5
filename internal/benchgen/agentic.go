package gen

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// GenerateAgentic writes the session of an agent left to work: few
// prompts, each followed by thousands of tool calls (Bash, one at a time)
// whose results are short logs, with one to three progress entries per
// call (bash_progress, hanging off the call beside its result, as 2.1.x
// writes them), and a text answer at the end of each prompt's turn. Lines
// come from the first prompt, Bash call, Bash result and text answer of
// the template tools.jsonl, with fresh ids.
func GenerateAgentic(o Options) (*Result, error) {
	if o.Size <= 0 {
		return nil, fmt.Errorf("size must be positive")
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	lines, err := readLines(filepath.Join(o.Templates, "tools.jsonl"))
	if err != nil {
		return nil, err
	}
	var prompt, call, result, answer []byte
	for _, l := range lines {
		r := gjson.ParseBytes(l)
		switch {
		case prompt == nil && r.Get("type").Str == "user" && r.Get("message.content").Type == gjson.String:
			prompt = l
		case call == nil && r.Get("type").Str == "assistant" && r.Get("message.content.0.name").Str == "Bash":
			call = l
		case result == nil && call != nil && r.Get("type").Str == "user" && r.Get("toolUseResult.stdout").Exists():
			result = l
		case answer == nil && r.Get("type").Str == "assistant" && r.Get("message.content.0.type").Str == "text":
			answer = l
		}
	}
	if prompt == nil || call == nil || result == nil || answer == nil {
		return nil, fmt.Errorf("%s: tools.jsonl lacks a prompt, a Bash call, its result or a text answer", o.Templates)
	}
	g := &generator{o: o, rng: rand.New(rand.NewSource(o.Seed))}
	g.sessionID = g.uuid()
	g.pools()
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
	clock := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	res := &Result{SessionID: g.sessionID, Path: path}

	parent := ""
	emit := func(line []byte, uuid string) error {
		set := func(k string, v any) {
			if err == nil {
				line, err = sjson.SetBytes(line, k, v)
			}
		}
		set("uuid", uuid)
		if parent == "" {
			set("parentUuid", nil)
		} else {
			set("parentUuid", parent)
		}
		set("sessionId", g.sessionID)
		set("timestamp", clock.Format("2006-01-02T15:04:05.000Z"))
		if err != nil {
			return err
		}
		_, _ = w.Write(line)
		return w.WriteByte('\n')
	}
	tick := func(ms int) { clock = clock.Add(time.Duration(ms) * time.Millisecond) }
	written := func() int64 { return cw.n + int64(w.Buffered()) }

	for p := 0; written() < o.Size; p++ {
		id := g.uuid()
		line, _ := sjson.SetBytes(prompt, "message.content", fmt.Sprintf("Task %d: keep going until every test passes; run the suite after each change.", p+1))
		if err := emit(line, id); err != nil {
			return nil, err
		}
		parent = id
		calls := 2000 + g.rng.Intn(2000)
		for c := 0; c < calls && written() < o.Size; c++ {
			tick(500 + g.rng.Intn(4000))
			toolID := "toolu_" + g.randStr(24, alnum)
			callID := g.uuid()
			line, _ := sjson.SetBytes(call, "message.content.0.id", toolID)
			line, _ = sjson.SetBytes(line, "message.content.0.input.command", "go test ./"+pkgs[g.rng.Intn(len(pkgs))]+"/... -run "+title(idents[g.rng.Intn(len(idents))]))
			line, _ = sjson.SetBytes(line, "message.id", "msg_"+g.randStr(24, alnum))
			line, _ = sjson.SetBytes(line, "requestId", "req_"+g.randStr(24, alnum))
			if err := emit(line, callID); err != nil {
				return nil, err
			}
			out := g.logText(200+g.rng.Intn(2500), false)
			// progress entries hang off the call, one after the other
			parent = callID
			for k, n := 0, 1+g.rng.Intn(3); k < n; k++ {
				tick(200 + g.rng.Intn(1500))
				pid := g.uuid()
				pl := progressLine(toolID, k, out[:min(len(out), 120*(k+1))])
				if err := emit(pl, pid); err != nil {
					return nil, err
				}
				parent = pid
			}
			tick(50 + g.rng.Intn(200))
			parent = callID
			rid := g.uuid()
			line, _ = sjson.SetBytes(result, "message.content.0.tool_use_id", toolID)
			line, _ = sjson.SetBytes(line, "message.content.0.content", out)
			line, _ = sjson.SetBytes(line, "toolUseResult.stdout", out)
			line, _ = sjson.SetBytes(line, "sourceToolAssistantUUID", callID)
			if err := emit(line, rid); err != nil {
				return nil, err
			}
			parent = rid
			res.Bulk++
		}
		tick(1000 + g.rng.Intn(5000))
		aid := g.uuid()
		line, _ = sjson.SetBytes(answer, "message.id", "msg_"+g.randStr(24, alnum))
		line, _ = sjson.SetBytes(line, "requestId", "req_"+g.randStr(24, alnum))
		if err := emit(line, aid); err != nil {
			return nil, err
		}
		parent = aid
		res.Copies++
		tick(60_000 + g.rng.Intn(600_000))
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return nil, err
	}
	if err := fh.Close(); err != nil {
		return nil, err
	}
	res.Bytes = cw.n
	res.End = clock
	_ = os.Chtimes(path, clock, clock)
	return res, nil
}

// progressLine is a bash_progress entry of the call toolID (uuid, parent,
// session and timestamp are set by the caller).
func progressLine(toolID string, k int, output string) []byte {
	line := []byte(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/tmp/workspace","sessionId":"","version":"2.1.328","gitBranch":"HEAD","type":"progress","data":{"type":"bash_progress","output":"","fullOutput":"","elapsedTimeSeconds":0,"totalLines":0},"toolUseID":"","parentToolUseID":"","timestamp":"","uuid":""}`)
	line, _ = sjson.SetBytes(line, "data.output", output)
	line, _ = sjson.SetBytes(line, "data.fullOutput", output)
	line, _ = sjson.SetRawBytes(line, "data.elapsedTimeSeconds", []byte(strconv.Itoa(k+1)))
	line, _ = sjson.SetRawBytes(line, "data.totalLines", []byte(strconv.Itoa(1+len(output)/80)))
	line, _ = sjson.SetBytes(line, "toolUseID", "bash-progress-"+strconv.Itoa(k))
	line, _ = sjson.SetBytes(line, "parentToolUseID", toolID)
	return line
}
