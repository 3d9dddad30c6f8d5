package chain

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/tidwall/gjson"
)

// TestResumeTokensMatchRecordedUsage: on every real conversation of the
// corpus, the estimate of the whole conversation (the request a resume
// sends) is within 10% of the last response's recorded input plus its
// output. go run ./cmd/tokeneval prints the full distribution.
func TestResumeTokensMatchRecordedUsage(t *testing.T) {
	var files []string
	filepath.WalkDir(testcorpus.Require(t), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no session in the corpus")
	}
	measured := 0
	for _, p := range files {
		f, err := LoadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		g := f.Graph()
		for i := range f.Entries {
			if e := &f.Entries[i]; !e.IsMessage() || e.UUID() == "" || len(g.ChildrenOf(i)) > 0 {
				continue // every conversation's leaf, subagent sidechains included
			}
			path := g.PathTo(i)
			est := f.ResumeTokensWith(path, func(j int) ([]byte, bool) { b, err := f.Raw(j); return b, err == nil })
			pts := f.RecordedUsage(path, est)
			if len(pts) == 0 || !est.OverheadMeasured {
				continue
			}
			last := pts[len(pts)-1]
			truth := last.Usage.Input + last.Usage.Output
			got := last.Through + est.Overhead
			if e := math.Abs(float64(got-truth)) / float64(truth); e > 0.10 {
				t.Errorf("%s (leaf line %d): estimated %d tokens, recorded %d (%.1f%% off)", p, f.Entries[i].Line, got, truth, 100*e)
			}
			measured++
		}
		f.Close()
	}
	if measured < 20 {
		t.Errorf("only %d conversations with real usage measured", measured)
	}
}

// TestSyntheticUsageIsNotOverhead: the harness mock records usage of
// 100 + request bytes/100, far below any real system prompt: the estimate
// falls back to the default overhead instead of trusting it.
func TestSyntheticUsageIsNotOverhead(t *testing.T) {
	f, err := LoadFile("../testdata/sessions/2.1.328/tools.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	est := f.ResumeTokens()
	if est.OverheadMeasured || est.Overhead != DefaultOverhead {
		t.Errorf("overhead %d measured=%v, want the default %d", est.Overhead, est.OverheadMeasured, DefaultOverhead)
	}
	if est.Tokens[TokToolOutput] == 0 || est.Tokens[TokToolInput] == 0 || est.Tokens[TokText] == 0 {
		t.Errorf("kinds not all counted: %v", est.Tokens)
	}
}

func pngHeader(w, h uint32) string {
	b := make([]byte, 33)
	copy(b, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	return base64.StdEncoding.EncodeToString(b)
}

// TestImageTokensFollowThePixelRule: images cost pixels/750 after the
// API's downscale, whatever their byte size.
func TestImageTokensFollowThePixelRule(t *testing.T) {
	for _, c := range []struct {
		w, h uint32
		want int
	}{
		{200, 200, 53},     // 40,000 px / 750
		{1000, 1000, 1333}, // under both limits
		{3000, 1000, 1093}, // long edge to 1568: 1568x523
		{1568, 1568, 1533}, // to 1.15 MP
	} {
		src := gjson.Parse(`{"type":"base64","media_type":"image/png","data":"` + pngHeader(c.w, c.h) + `"}`)
		if got := ImageTokens(src); math.Abs(float64(got-c.want)) > 2 {
			t.Errorf("%dx%d: %d tokens, want %d", c.w, c.h, got, c.want)
		}
	}
	if got := ImageTokens(gjson.Parse(`{"type":"url","url":"https://x/y.png"}`)); got != 1533 {
		t.Errorf("url image: %d, want a full-size image's 1533", got)
	}
}

// The compact per-entry estimates give back every estimate they were
// given, in any order of adding, with duplicates and counts beyond int32.
func TestPerEntryRoundTrip(t *testing.T) {
	want := map[int]Tokens{}
	var p perEntry
	for _, i := range []int{7, 3, 1 << 20, 0, 3, 42} {
		tk := Tokens{i, 2 * i, 3, 0, 1, i % 5, 9}
		if i == 42 {
			tk[TokImage] = 1 << 40 // not an int32
		}
		want[i] = tk
		p.add(i, tk)
	}
	p.seal()
	for i, tk := range want {
		if got, ok := p.get(i); !ok || got != tk {
			t.Errorf("get(%d) = %v, %v; want %v", i, got, ok, tk)
		}
	}
	if _, ok := p.get(5); ok {
		t.Errorf("get(5) found an entry never added")
	}
	seen := map[int]Tokens{}
	p.each(func(i int, tk Tokens) {
		if _, dup := seen[i]; dup {
			t.Errorf("each gave entry %d twice", i)
		}
		seen[i] = tk
	})
	if len(seen) != len(want) {
		t.Errorf("each gave %d entries, want %d", len(seen), len(want))
	}
	for i, tk := range want {
		if seen[i] != tk {
			t.Errorf("each: entry %d = %v, want %v", i, seen[i], tk)
		}
	}
}
