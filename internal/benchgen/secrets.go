package gen

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// GenerateSecrets writes one session dense with secrets, for the speed and
// memory of redact-secrets: the multi-turn template conversation, then user
// prompts of about 8 KB (pasted logs, configs and commands, one secret
// every few lines: tokens with a prefix, passwords in assignments and
// URLs, PEM keys, JWTs) each answered by a short assistant reply, chained,
// until the main transcript reaches o.Size. Every prompt holds secrets.
func GenerateSecrets(o Options) (*Result, error) {
	if o.Size <= 0 {
		return nil, fmt.Errorf("size must be positive")
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	g := &generator{o: o, rng: rand.New(rand.NewSource(o.Seed))}
	sid := g.uuid()
	proj := filepath.Join(o.Dir, "projects", o.Project)
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(proj, sid+".jsonl")
	fh, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	cw := &countWriter{w: fh}
	w := bufio.NewWriterSize(cw, 1<<20)
	res := &Result{SessionID: sid, Path: path}
	ids := func(int, string) string { return g.uuid() }
	next := func(int) (string, bool) {
		if cw.n+int64(w.Buffered()) >= o.Size {
			return "", false
		}
		text, n := g.secretText(8 << 10)
		res.Copies++
		res.Secrets += n
		return text, true
	}
	if err := PromptChain(w, filepath.Join(o.Templates, "multi-turn.jsonl"), sid, ids, next); err != nil {
		fh.Close()
		return nil, err
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return nil, err
	}
	if err := fh.Close(); err != nil {
		return nil, err
	}
	res.Bytes = cw.n
	return res, nil
}

// PromptChain writes the session templateFile (a real client session
// holding a plain-text prompt and a text reply), then one user prompt and a
// short assistant reply per text next returns (until it returns false),
// each chained onto the one before. ids(i, part) names the ids of prompt i
// (part "user", "assistant", "prompt", "message"); sessionID, when not
// empty, replaces the template's. The redact evaluation uses it too.
func PromptChain(w *bufio.Writer, templateFile, sessionID string, ids func(i int, part string) string, next func(i int) (string, bool)) error {
	tpl, err := os.ReadFile(templateFile)
	if err != nil {
		return err
	}
	var user, asst, parent string
	for _, l := range strings.Split(strings.TrimRight(string(tpl), "\n"), "\n") {
		if sessionID != "" && gjson.Get(l, "sessionId").Exists() {
			l, _ = sjson.Set(l, "sessionId", sessionID)
		}
		t := gjson.Get(l, "type").Str
		if t == "user" && user == "" && gjson.Get(l, "message.content").Type == gjson.String {
			user = l
		}
		if t == "assistant" && asst == "" && gjson.Get(l, "message.content.0.type").Str == "text" {
			asst = l
		}
		if u := gjson.Get(l, "uuid").Str; u != "" {
			parent = u
		}
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if user == "" || asst == "" {
		return fmt.Errorf("%s: no plain prompt or text reply to copy", templateFile)
	}
	for i := 0; ; i++ {
		text, ok := next(i)
		if !ok {
			return nil
		}
		u, a := ids(i, "user"), ids(i, "assistant")
		l, _ := sjson.Set(user, "uuid", u)
		l, _ = sjson.Set(l, "parentUuid", parent)
		l, _ = sjson.Set(l, "promptId", ids(i, "prompt"))
		l, _ = sjson.SetRaw(l, "message.content", string(jsonString(text)))
		r, _ := sjson.Set(asst, "uuid", a)
		r, _ = sjson.Set(r, "parentUuid", u)
		r, _ = sjson.Set(r, "message.id", "msg_"+strings.ReplaceAll(ids(i, "message"), "-", ""))
		r, _ = sjson.Set(r, "message.content.0.text", "Noted.")
		w.WriteString(l)
		w.WriteByte('\n')
		w.WriteString(r)
		w.WriteByte('\n')
		parent = a
	}
}

const alnumChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// secretText is about size bytes of pasted material with a secret every
// few lines; it returns the text and how many secrets it holds.
func (g *generator) secretText(size int) (string, int) {
	var b strings.Builder
	n := 0
	hex := "0123456789abcdef"
	for b.Len() < size {
		switch g.rng.Intn(4) {
		case 0:
			fmt.Fprintf(&b, "2026-01-05T09:%02d:%02dZ INFO worker %d processed batch %s in %dms\n",
				g.rng.Intn(60), g.rng.Intn(60), g.rng.Intn(64), g.randStr(12, hex), g.rng.Intn(900))
			continue
		case 1:
			fmt.Fprintf(&b, "    at com.example.service.Handler.process(Handler.java:%d)\n", g.rng.Intn(500))
			continue
		}
		n++
		switch g.rng.Intn(10) {
		case 0:
			b.WriteString("export GITHUB_TOKEN=ghp_" + g.randStr(36, alnumChars) + "\n")
		case 1:
			b.WriteString("aws_access_key_id = AKIA" + g.randStr(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") + "\naws_secret_access_key = " + g.randStr(40, alnumChars+"+/") + "\n")
			n++
		case 2:
			b.WriteString("ANTHROPIC_API_KEY=sk-ant-api03-" + g.randStr(93, alnumChars+"_-") + "AA\n")
		case 3:
			b.WriteString(`{"db": {"user": "app", "password": "` + g.randStr(16, alnumChars+"!#%") + `"}}` + "\n")
		case 4:
			b.WriteString("DATABASE_URL=postgres://app:" + g.randStr(20, alnumChars) + "@db.internal:5432/app\n")
		case 5:
			b.WriteString("curl -H \"Authorization: Bearer " + g.randStr(40, alnumChars) + "\" https://api.example.com/v1/jobs\n")
		case 6:
			b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
			for k := 0; k < 6; k++ {
				b.WriteString(g.randStr(64, alnumChars+"+/") + "\n")
			}
			b.WriteString("-----END RSA PRIVATE KEY-----\n")
		case 7:
			hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
			pl := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"` + g.randStr(10, alnumChars) + `","iat":1767603600}`))
			b.WriteString("token: " + hdr + "." + pl + "." + g.randStr(43, alnumChars+"_-") + "\n")
		case 8:
			b.WriteString("STRIPE_SECRET_KEY=sk_live_" + g.randStr(24, alnumChars) + "\n")
		case 9:
			b.WriteString("mysql -h db -u root -p" + g.randStr(14, alnumChars) + " shop\n")
		}
	}
	return b.String(), n
}

func init() {
	RegisterShape(Shape{Name: "secrets", Generate: GenerateSecrets,
		Doc: "every prompt ~8 KB of logs, configs and commands with a secret every few lines (redact-secrets speed and memory)"})
}

// SecretTexts is n texts of about size bytes each as the secrets shape's
// prompts hold them (a secret every few lines), for benchmarks of the
// scanner alone.
func SecretTexts(seed int64, n, size int) []string {
	g := &generator{rng: rand.New(rand.NewSource(seed))}
	out := make([]string, n)
	for i := range out {
		out[i], _ = g.secretText(size)
	}
	return out
}

// pastedSecrets is n lines of a config or env file a person pastes, each
// holding one secret of a kind the secrets shape uses.
func (g *generator) pastedSecrets(n int) string {
	var b strings.Builder
	for k := 0; k < n; k++ {
		switch g.rng.Intn(7) {
		case 0:
			b.WriteString("GITHUB_TOKEN=ghp_" + g.randStr(36, alnumChars) + "\n")
		case 1:
			b.WriteString("AWS_ACCESS_KEY_ID=AKIA" + g.randStr(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") + "\n")
		case 2:
			b.WriteString("ANTHROPIC_API_KEY=sk-ant-api03-" + g.randStr(93, alnumChars+"_-") + "AA\n")
		case 3:
			b.WriteString("DB_PASSWORD=" + g.randStr(16, alnumChars+"!#%") + "\n")
		case 4:
			b.WriteString("DATABASE_URL=postgres://app:" + g.randStr(20, alnumChars) + "@db.internal:5432/app\n")
		case 5:
			b.WriteString("STRIPE_SECRET_KEY=sk_live_" + g.randStr(24, alnumChars) + "\n")
		case 6:
			b.WriteString("SLACK_BOT_TOKEN=xoxb-" + g.randStr(11, "0123456789") + "-" + g.randStr(12, "0123456789") + "-" + g.randStr(24, alnumChars) + "\n")
		}
	}
	return b.String()
}

func init() {
	RegisterShape(Shape{Name: "dense-secrets", Generate: func(o Options) (*Result, error) {
		o.SecretsPerPrompt = 7
		return GenerateDense(o)
	}, Doc: "the dense shape with seven secrets pasted under every prompt (the session issue 14 measured: real turns repeated, parallel calls, subagents, seven secrets a turn)"})
}
