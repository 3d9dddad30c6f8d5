package backup

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lines(n ...int) string {
	var sb strings.Builder
	for _, i := range n {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		opts DiffOptions
		want string
	}{
		{name: "equal", a: lines(1, 2, 3), b: lines(1, 2, 3), want: ""},
		{name: "both empty", want: ""},
		{name: "one change", a: lines(1, 2, 3, 4, 5, 6, 7, 8, 9), b: strings.Replace(lines(1, 2, 3, 4, 5, 6, 7, 8, 9), "line 5", "LINE 5", 1),
			want: "--- a\n+++ b\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+LINE 5\n line 6\n line 7\n line 8\n"},
		{name: "names and removal", a: lines(1, 2, 3), b: lines(1, 3), opts: DiffOptions{NameA: "x.jsonl", NameB: "x.jsonl (edited)"},
			want: "--- x.jsonl\n+++ x.jsonl (edited)\n@@ -1,3 +1,2 @@\n line 1\n-line 2\n line 3\n"},
		{name: "insert into empty", a: "", b: lines(1),
			want: "--- a\n+++ b\n@@ -0,0 +1 @@\n+line 1\n"},
		{name: "no newline at end", a: "x\ny", b: "x\nz",
			want: "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n"},
		{name: "two hunks", a: lines(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20), b: lines(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19),
			want: "--- a\n+++ b\n@@ -1,4 +1,3 @@\n-line 1\n line 2\n line 3\n line 4\n@@ -17,4 +16,3 @@\n line 17\n line 18\n line 19\n-line 20\n"},
		{name: "close changes merge", a: lines(1, 2, 3, 4, 5, 6, 7, 8), b: lines(2, 3, 4, 5, 6, 7),
			want: "--- a\n+++ b\n@@ -1,8 +1,6 @@\n-line 1\n line 2\n line 3\n line 4\n line 5\n line 6\n line 7\n-line 8\n"},
		{name: "context 1", a: lines(1, 2, 3, 4, 5), b: lines(1, 2, 4, 5), opts: DiffOptions{Context: 1},
			want: "--- a\n+++ b\n@@ -2,3 +2,2 @@\n line 2\n-line 3\n line 4\n"},
		{name: "uuids differ", a: "{\"uuid\":\"11111111-2222-4333-8444-555555555555\"}\n", b: "{\"uuid\":\"aaaaaaaa-2222-4333-8444-555555555555\"}\n",
			want: "--- a\n+++ b\n@@ -1 +1 @@\n-{\"uuid\":\"11111111-2222-4333-8444-555555555555\"}\n+{\"uuid\":\"aaaaaaaa-2222-4333-8444-555555555555\"}\n"},
		{name: "uuids ignored", opts: DiffOptions{IgnoreUUIDs: true},
			a:    "{\"uuid\":\"11111111-2222-4333-8444-555555555555\",\"parentUuid\":null}\n{\"uuid\":\"22222222-2222-4333-8444-555555555555\",\"parentUuid\":\"11111111-2222-4333-8444-555555555555\"}\n",
			b:    "{\"uuid\":\"AAAAAAAA-2222-4333-8444-555555555555\",\"parentUuid\":null}\n{\"uuid\":\"bbbbbbbb-2222-4333-8444-555555555555\",\"parentUuid\":\"aaaaaaaa-2222-4333-8444-555555555555\"}\n",
			want: ""},
		{name: "uuid structure still compared", opts: DiffOptions{IgnoreUUIDs: true},
			a:    "{\"p\":\"11111111-2222-4333-8444-555555555555\"}\n{\"p\":\"11111111-2222-4333-8444-555555555555\"}\n",
			b:    "{\"p\":\"aaaaaaaa-2222-4333-8444-555555555555\"}\n{\"p\":\"bbbbbbbb-2222-4333-8444-555555555555\"}\n",
			want: "--- a\n+++ b\n@@ -1,2 +1,2 @@\n {\"p\":\"<uuid-1>\"}\n-{\"p\":\"<uuid-1>\"}\n+{\"p\":\"<uuid-2>\"}\n"},
		{name: "session id ignored", opts: DiffOptions{IgnoreUUIDs: true, SessionA: "sess-old", SessionB: "sess-new"},
			a: "{\"sessionId\":\"sess-old\"}\n", b: "{\"sessionId\":\"sess-new\"}\n", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Diff([]byte(tc.a), []byte(tc.b), tc.opts))
		})
	}
}

func TestDiffShortensLongLines(t *testing.T) {
	long := func(mid string) string {
		return `{"message":"` + strings.Repeat("a", 300) + mid + strings.Repeat("b", 300) + `"}` + "\n"
	}
	a := "short\n" + long("OLD") + "ctx\n"
	b := "short\n" + long("NEW") + "ctx\n" + strings.Repeat("z", 250) + "\n"
	out := Diff([]byte(a), []byte(b), DiffOptions{})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 8, out)
	// The changed lines are cut 80 bytes either side of the difference.
	wantMinus := "-…" + strings.Repeat("a", 80) + "OLD" + strings.Repeat("b", 77) + "…"
	wantPlus := "+…" + strings.Repeat("a", 80) + "NEW" + strings.Repeat("b", 77) + "…"
	assert.Equal(t, wantMinus, lines[4])
	assert.Equal(t, wantPlus, lines[5])
	// An unpaired long line shows its start.
	assert.Equal(t, "+"+strings.Repeat("z", 160)+"…", lines[7])
	// Unlimited.
	full := Diff([]byte(a), []byte(b), DiffOptions{MaxLine: -1})
	assert.Contains(t, full, "-"+strings.TrimSuffix(long("OLD"), "\n")+"\n")
}

func TestDiffShortenUTF8(t *testing.T) {
	a := strings.Repeat("é", 150) + "x\n"
	b := strings.Repeat("é", 150) + "y\n"
	out := Diff([]byte(a), []byte(b), DiffOptions{})
	for _, l := range strings.Split(out, "\n") {
		assert.True(t, strings.ToValidUTF8(l, "?") == l, "invalid UTF-8 in %q", l)
	}
}

func TestDiffSummary(t *testing.T) {
	tests := []struct {
		a, b string
		want DiffStats
	}{
		{lines(1, 2, 3), lines(1, 2, 3), DiffStats{}},
		{lines(1, 2, 3), lines(1, 3), DiffStats{Removed: 1}},
		{lines(1, 3), lines(1, 2, 3, 4), DiffStats{Added: 2}},
		{lines(1, 2, 3), "line 1\nX\nY\nline 3\n", DiffStats{Changed: 1, Added: 1}},
		{lines(1, 2, 3, 4, 5), "line 1\nX\nline 4\n", DiffStats{Changed: 1, Removed: 2}},
	}
	for _, tc := range tests {
		got := DiffSummary([]byte(tc.a), []byte(tc.b), DiffOptions{})
		assert.Equal(t, tc.want, got, "%q -> %q", tc.a, tc.b)
		assert.Equal(t, tc.want.Empty(), Diff([]byte(tc.a), []byte(tc.b), DiffOptions{}) == "")
	}
	assert.Equal(t, "1 changed, 2 removed, 0 added", DiffStats{Changed: 1, Removed: 2}.String())
}

// TestDiffAppliesBack checks on random inputs that applying the produced
// hunks to a gives b, which validates hunk headers and line numbering.
func TestDiffAppliesBack(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		var sb strings.Builder
		for range r.IntN(40) {
			fmt.Fprintf(&sb, "l%d\n", r.IntN(8))
		}
		return sb.String()
	}
	for i := range 500 {
		a, b := gen(), gen()
		ctx := r.IntN(4) - 1
		out := Diff([]byte(a), []byte(b), DiffOptions{Context: ctx, MaxLine: -1})
		got, err := applyUnified(a, out)
		require.NoError(t, err, "case %d\n%s", i, out)
		require.Equal(t, b, got, "case %d\n%s", i, out)
	}
}

var hunkRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// applyUnified is a minimal patch(1) for newline-terminated inputs.
func applyUnified(a, patch string) (string, error) {
	if patch == "" {
		return a, nil
	}
	src := strings.SplitAfter(a, "\n")
	src = src[:len(src)-1]
	pl := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")[2:]
	var out []string
	pos := 0 // next unconsumed line of a
	for i := 0; i < len(pl); {
		m := hunkRE.FindStringSubmatch(pl[i])
		if m == nil {
			return "", fmt.Errorf("bad hunk header %q", pl[i])
		}
		startA, _ := strconv.Atoi(m[1])
		countA, startB, countB := 1, 0, 1
		if m[2] != "" {
			countA, _ = strconv.Atoi(m[2])
		}
		startB, _ = strconv.Atoi(m[3])
		if m[4] != "" {
			countB, _ = strconv.Atoi(m[4])
		}
		first := startA - 1
		if countA == 0 {
			first = startA
		}
		if first < pos {
			return "", fmt.Errorf("overlapping hunk %q", pl[i])
		}
		out = append(out, src[pos:first]...)
		pos = first
		if want := len(out) + 1; countB > 0 && startB != want || countB == 0 && startB != want-1 {
			return "", fmt.Errorf("hunk %q: new start should be %d", pl[i], want)
		}
		i++
		seenA, seenB := 0, 0
		for ; i < len(pl) && !strings.HasPrefix(pl[i], "@@"); i++ {
			text := pl[i][1:] + "\n"
			switch pl[i][0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != text {
					return "", fmt.Errorf("line %d mismatch: %q", pos+1, pl[i])
				}
				pos++
				seenA++
				if pl[i][0] == ' ' {
					out = append(out, text)
					seenB++
				}
			case '+':
				out = append(out, text)
				seenB++
			default:
				return "", fmt.Errorf("bad line %q", pl[i])
			}
		}
		if seenA != countA || seenB != countB {
			return "", fmt.Errorf("hunk counts %d,%d, saw %d,%d", countA, countB, seenA, seenB)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

func TestDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := range 200_000 {
		line := fmt.Sprintf(`{"uuid":"%08d-0000-4000-8000-000000000000","n":%d}`+"\n", i, i)
		a.WriteString(line)
		if i%1000 != 0 {
			b.WriteString(line)
		}
	}
	s := DiffSummary([]byte(a.String()), []byte(b.String()), DiffOptions{})
	assert.Equal(t, DiffStats{Removed: 200}, s)
}
