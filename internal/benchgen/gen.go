// Package gen grows real Claude Code sessions (testdata/sessions/2.1.328)
// into big ones for benchmarks.
//
// A generated session is the template conversations repeated and chained
// end to start: every copy gets fresh UUIDs (one map per copy for every
// uuid-shaped value outside message content), fresh toolu_ and msg_ ids,
// one session id for the whole output and shifted timestamps; the first
// root entry of a copy is re-parented onto the last chain entry of the
// copy before it. Bulk is added so every operation has work to do: large
// Bash and Read outputs (with their toolUseResult copies), long thinking
// blocks (signed the way package harness signs them), occasional base64
// images in a Read result, planted fake secrets in Bash output, and one
// subagent transcript per copy of subagent.jsonl. The output depends only
// on the options: all randomness comes from math/rand seeded with Seed.
package gen

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Options says what to generate.
type Options struct {
	Size      int64  // target size of the main transcript in bytes (reached or just passed)
	Seed      int64  // seed of every random choice
	Dir       string // config dir: the session goes to Dir/projects/<Project>/<id>.jsonl
	Project   string // project folder name (default "-bench")
	Templates string // template folder (default: this module's testdata/sessions/2.1.328)
	// NoBulk leaves the template conversations as they are (no added tool
	// output, thinking, images or secrets): for many small sessions.
	NoBulk bool
	// Start is the timestamp of the first entry (default 2026-01-05T09:00Z
	// plus a seed-dependent offset).
	Start time.Time
	// Weights says how often each template is picked (nil: mostly the
	// tool-heavy ones).
	Weights map[string]int
	// SecretsPerPrompt pastes that many secrets (config and env lines,
	// each of a kind the secrets shape uses) under every prompt.
	SecretsPerPrompt int
}

// Result describes a generated session.
type Result struct {
	SessionID string
	Path      string // the main transcript
	Bytes     int64  // bytes of the main transcript
	Copies    int    // template conversations written
	Subagents int    // subagent transcripts written
	Bulk      int    // tool results given large output
	Images    int    // image blocks added
	Secrets   int    // Bash outputs with planted secrets
	Thinking  int    // thinking blocks lengthened
	End       time.Time
}

// defaults fills in the project folder and the template folder.
func (o *Options) defaults() error {
	if o.Project == "" {
		o.Project = "-bench"
	}
	if o.Templates == "" {
		d, err := DefaultTemplateDir()
		if err != nil {
			return err
		}
		o.Templates = d
	}
	return nil
}

// Generate writes one session and returns what it wrote.
func Generate(o Options) (*Result, error) {
	if o.Size <= 0 {
		return nil, fmt.Errorf("size must be positive")
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	tpls, err := loadTemplates(o.Templates)
	if err != nil {
		return nil, err
	}
	g := &generator{o: o, rng: rand.New(rand.NewSource(o.Seed)), tpls: tpls}
	g.sessionID = g.uuid()
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC).Add(time.Duration(g.rng.Intn(86400)) * time.Second)
	}
	g.clock = o.Start
	g.pools()
	proj := filepath.Join(o.Dir, "projects", o.Project)
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return nil, err
	}
	g.sidecar = filepath.Join(proj, g.sessionID)
	path := filepath.Join(proj, g.sessionID+".jsonl")
	fh, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	cw := &countWriter{w: fh}
	w := bufio.NewWriterSize(cw, 1<<20)
	res := &Result{SessionID: g.sessionID, Path: path}
	g.res = res
	for {
		t := g.pick()
		if err := g.copyTemplate(w, t); err != nil {
			fh.Close()
			return nil, err
		}
		res.Copies++
		if cw.n+int64(w.Buffered()) >= o.Size {
			break
		}
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return nil, err
	}
	if err := fh.Close(); err != nil {
		return nil, err
	}
	res.Bytes = cw.n
	res.End = g.clock
	_ = os.Chtimes(path, g.clock, g.clock)
	return res, nil
}

// GenerateMany writes n independent sessions of about size bytes each into
// Dir/projects/<project>/ (for listing benchmarks). Sessions below 1 MB
// get no bulk.
func GenerateMany(dir, project string, n int, size, seed int64) ([]*Result, error) {
	var out []*Result
	base := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		r, err := Generate(Options{Size: size, Seed: seed*1_000_003 + int64(i), Dir: dir, Project: project,
			NoBulk: size < 1<<20, Start: base.Add(time.Duration(i) * 37 * time.Minute)})
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type generator struct {
	o         Options
	rng       *rand.Rand
	tpls      []*template
	res       *Result
	sessionID string
	sidecar   string
	clock     time.Time
	prevLeaf  string // new uuid of the last chain entry of the previous copy
	copied    map[string]bool
	buf       []byte
	sb        strings.Builder

	logPool, codePool, prosePool []string
}

// defaultWeights picks mostly the tool-heavy templates.
var defaultWeights = map[string]int{"tools": 4, "multi-turn": 2, "parallel-tools": 3, "subagent": 2, "secrets": 1, "thinking-tool-loop": 2}

// pick chooses the next template by Options.Weights.
func (g *generator) pick() *template {
	weights := g.o.Weights
	if weights == nil {
		weights = defaultWeights
	}
	total := 0
	for _, t := range g.tpls {
		total += weights[t.name]
	}
	r := g.rng.Intn(total)
	for _, t := range g.tpls {
		r -= weights[t.name]
		if r < 0 {
			return t
		}
	}
	return g.tpls[0]
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func (g *generator) uuid() string {
	var b [16]byte
	g.rng.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hx = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hx[c>>4], hx[c&15])
	}
	return string(out)
}

func (g *generator) randStr(n int, chars string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[g.rng.Intn(len(chars))]
	}
	return string(b)
}

// idMap holds the new ids of one copy.
type idMap struct {
	g     *generator
	m     map[string]string
	shift time.Duration
}

func (im *idMap) get(s slot) string {
	switch s.kind {
	case slotSession:
		return im.g.sessionID
	case slotTime:
		t, err := time.Parse(time.RFC3339Nano, s.old)
		if err != nil {
			return s.old
		}
		return t.Add(im.shift).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if v, ok := im.m[s.old]; ok {
		return v
	}
	var v string
	switch s.kind {
	case slotUUID:
		v = im.g.uuid()
	case slotTool:
		v = "toolu_" + im.g.randStr(len(s.old)-6, alnum)
	case slotMsg:
		v = "msg_" + im.g.randStr(len(s.old)-4, alnum)
	case slotAgent:
		v = "a" + im.g.randStr(len(s.old)-1, "0123456789abcdef")
	}
	im.m[s.old] = v
	return v
}

// render returns the line with its slots rewritten (in g.buf).
func (g *generator) render(l *tline, im *idMap) []byte {
	g.buf = append(g.buf[:0], l.raw...)
	for _, s := range l.slots {
		v := im.get(s)
		if len(v) != len(s.old) {
			panic(fmt.Sprintf("gen: new id %q has not the length of %q", v, s.old))
		}
		copy(g.buf[s.off:], v)
	}
	return g.buf
}

func (g *generator) copyTemplate(w *bufio.Writer, t *template) error {
	im := &idMap{g: g, m: map[string]string{}, shift: g.clock.Sub(t.t0)}
	for _, l := range t.main.lines {
		line := g.render(l, im)
		if l.root && g.prevLeaf != "" {
			line = replaceOnce(line, `"parentUuid":null`, `"parentUuid":"`+g.prevLeaf+`"`)
		}
		if !g.o.NoBulk && t.bulk {
			var err error
			if line, err = g.addBulk(line, l); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
		}
		if l.prompt && g.o.SecretsPerPrompt > 0 {
			text := gjson.GetBytes(line, "message.content").Str + "\n\n" + g.pastedSecrets(g.o.SecretsPerPrompt)
			var err error
			if line, err = sjson.SetRawBytes(line, "message.content", jsonString(text)); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			g.res.Secrets += g.o.SecretsPerPrompt
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
	}
	g.prevLeaf = im.m[t.lastChain]
	for _, a := range t.subagents {
		if err := g.writeSubagent(a, im); err != nil {
			return err
		}
	}
	if len(t.toolRes) > 0 {
		if err := g.copyToolResults(t); err != nil {
			return err
		}
	}
	g.clock = g.clock.Add(t.t1.Sub(t.t0) + time.Duration(20+g.rng.Intn(600))*time.Second)
	return nil
}

func replaceOnce(b []byte, old, new string) []byte {
	i := strings.Index(string(b), old)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+len(new)-len(old))
	out = append(out, b[:i]...)
	out = append(out, new...)
	return append(out, b[i+len(old):]...)
}

func (g *generator) writeSubagent(a *tfile, im *idMap) error {
	dir := filepath.Join(g.sidecar, "subagents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	id := im.get(slot{kind: slotAgent, old: a.agentID})
	fh, err := os.Create(filepath.Join(dir, "agent-"+id+".jsonl"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(fh)
	for _, l := range a.lines {
		w.Write(g.render(l, im))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Close(); err != nil {
		return err
	}
	if a.meta != nil {
		meta := string(a.meta)
		for old, nw := range im.m {
			if strings.HasPrefix(old, "toolu_") {
				meta = strings.ReplaceAll(meta, old, nw)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "agent-"+id+".meta.json"), []byte(meta), 0o644); err != nil {
			return err
		}
	}
	g.res.Subagents++
	return nil
}

func (g *generator) copyToolResults(t *template) error {
	if g.copied == nil {
		g.copied = map[string]bool{}
	}
	if g.copied[t.name] {
		return nil
	}
	g.copied[t.name] = true
	dir := filepath.Join(g.sidecar, "tool-results")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range t.toolRes {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Sign is the thinking signature of package harness (harness.Sign), so
// the harness mock accepts the lengthened thinking blocks.
func Sign(thinking string) string {
	h := sha256.Sum256([]byte("ccsurgeon-mock:" + thinking))
	return "EqMock" + base64.StdEncoding.EncodeToString(append(h[:], h[:16]...))
}

// addBulk makes a tool result or thinking block of line big.
func (g *generator) addBulk(line []byte, l *tline) ([]byte, error) {
	var err error
	switch {
	case l.bash && g.rng.Intn(10) < 8:
		secret := g.rng.Intn(20) == 0
		text := g.logText(20<<10+g.rng.Intn(180<<10), secret)
		js := jsonString(text)
		if line, err = sjson.SetRawBytes(line, "message.content.0.content", js); err != nil {
			return nil, err
		}
		if line, err = sjson.SetRawBytes(line, "toolUseResult.stdout", js); err != nil {
			return nil, err
		}
		g.res.Bulk++
		if secret {
			g.res.Secrets++
		}
	case l.read && g.rng.Intn(10) < 8:
		if g.rng.Intn(12) == 0 {
			raw := make([]byte, 150<<10+g.rng.Intn(150<<10))
			g.rng.Read(raw)
			copy(raw, "\x89PNG\r\n\x1a\n")
			data := base64.StdEncoding.EncodeToString(raw)
			content := `[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}}]`
			tur := `{"type":"image","file":{"base64":"` + data + `","type":"image/png","originalSize":` + strconv.Itoa(len(raw)) +
				`,"dimensions":{"originalWidth":1600,"originalHeight":1000,"displayWidth":1600,"displayHeight":1000}}}`
			if line, err = sjson.SetRawBytes(line, "message.content.0.content", []byte(content)); err != nil {
				return nil, err
			}
			if line, err = sjson.SetRawBytes(line, "toolUseResult", []byte(tur)); err != nil {
				return nil, err
			}
			g.res.Images++
			return line, nil
		}
		code, n := g.codeText(20<<10 + g.rng.Intn(180<<10))
		if line, err = sjson.SetRawBytes(line, "message.content.0.content", jsonString(numbered(code))); err != nil {
			return nil, err
		}
		if line, err = sjson.SetRawBytes(line, "toolUseResult.file.content", jsonString(code)); err != nil {
			return nil, err
		}
		line, _ = sjson.SetBytes(line, "toolUseResult.file.numLines", n)
		line, _ = sjson.SetBytes(line, "toolUseResult.file.totalLines", n)
		g.res.Bulk++
	case len(l.thinking) > 0:
		for _, i := range l.thinking {
			text := g.prose(2<<10 + g.rng.Intn(14<<10))
			p := "message.content." + strconv.Itoa(i)
			if line, err = sjson.SetRawBytes(line, p+".thinking", jsonString(text)); err != nil {
				return nil, err
			}
			if line, err = sjson.SetBytes(line, p+".signature", Sign(text)); err != nil {
				return nil, err
			}
			g.res.Thinking++
		}
	}
	return line, nil
}

// jsonString encodes s as a JSON string the way JSON.stringify does
// (no HTML escaping).
// jsonString encodes s as the client does (ops.EncodeString).
func jsonString(s string) []byte { return ops.EncodeString(s) }

func numbered(code string) string {
	var b strings.Builder
	b.Grow(len(code) + len(code)/4)
	n := 1
	for len(code) > 0 {
		i := strings.IndexByte(code, '\n')
		line := code
		if i >= 0 {
			line, code = code[:i], code[i+1:]
		} else {
			code = ""
		}
		num := strconv.Itoa(n)
		b.WriteString(strings.Repeat(" ", max(0, 6-len(num))))
		b.WriteString(num)
		b.WriteByte('\t')
		b.WriteString(line)
		b.WriteByte('\n')
		n++
	}
	return b.String()
}
