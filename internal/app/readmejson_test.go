package app

import (
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonKeys adds to out every key a value of type typ can print with
// encoding/json (walkJSONFields).
func jsonKeys(typ reflect.Type, out map[string]bool) {
	walkJSONFields(typ, func(_ reflect.Type, _ reflect.StructField, name string) { out[name] = true })
}

var (
	backtickRe = regexp.MustCompile("`([^`]*)`")
	identRe    = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	// a key of an object shape: a name after '{' or ', ', not a value after ': '
	shapeKeyRe = regexp.MustCompile(`(?:^|[{,]\s*)"?([a-z_][a-z0-9_]*)"?`)
)

var readmeJSONShapes = []struct {
	name     string
	sections [][2]string
	types    []any
}{
	{"info", [][2]string{{"`info` →", "`turns` →"}, {"`info --json` keys:", "`compress --target-tokens N` (and"}}, []any{InfoReport{}}},
	{"turns", [][2]string{{"`turns` →", "`validate` →"}}, []any{TurnJSON{}}},
	{"validate", [][2]string{{"`validate` →", "`ls` →"}}, []any{ValidateJSON{}}},
	{"ls", [][2]string{{"`ls` →", "`backups` →"}}, []any{SessionSummary{}}},
	{"backups", [][2]string{{"`backups` →", "`restore` →"}}, []any{BackupJSON{}, PurgeJSON{}}},
	{"restore", [][2]string{{"`restore` →", "`diff` →"}}, []any{RestoreJSON{}, MoveUndoJSON{}}},
	{"diff", [][2]string{{"`diff` →", "`move` →"}}, []any{DiffJSON{}}},
	{"move", [][2]string{{"`move` →", "The changing commands' object"}}, []any{MoveResult{}}},
	{"doctor", [][2]string{{"`--json` → `{sessions", "## Changing"}}, []any{DoctorResult{}}},
	{"the changing commands'", [][2]string{{"With `--json` every changing command prints one object", "| key | label |"},
		{"`resume_tokens.turns_removed` lists", "writing command that compresses"}}, []any{RepairResult{}}},
}

// TestReadmeJSONShapesAreWhatIsPrinted: the README's --json shapes of the
// reading commands, doctor, move, backups, restore, diff and the changing
// commands (whose object repair's holds whole) name every key
// the command can print (a key only some sessions give, behind omitempty,
// included: the types printed are walked, not one run's output), and every
// key a shape names in braces is one the command prints. `info` printed
// session_id, path, errors and warnings behind a '…'; backups --purge and
// restore of a move printed shapes the README did not give.
func TestReadmeJSONShapesAreWhatIsPrinted(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(b)
	section := func(from, to string) string {
		i := strings.Index(readme, from)
		require.GreaterOrEqual(t, i, 0, "README: no %q", from)
		j := strings.Index(readme[i+len(from):], to)
		require.GreaterOrEqual(t, j, 0, "README: no %q after %q", to, from)
		return readme[i : i+len(from)+j]
	}
	for _, c := range readmeJSONShapes {
		t.Run(c.name, func(t *testing.T) {
			printed := map[string]bool{}
			for _, v := range c.types {
				jsonKeys(reflect.TypeOf(v), printed)
			}
			named := map[string]bool{} // every name in backticks
			shape := map[string]bool{} // the keys of the shapes in braces
			for _, s := range c.sections {
				for _, m := range backtickRe.FindAllStringSubmatch(section(s[0], s[1]), -1) {
					for _, w := range identRe.FindAllString(m[1], -1) {
						named[w] = true
					}
					if strings.Contains(m[1], "{") {
						for _, k := range shapeKeyRe.FindAllStringSubmatch(m[1], -1) {
							shape[k[1]] = true
						}
					}
				}
			}
			var undocumented, unprinted []string
			for k := range printed {
				if !named[k] {
					undocumented = append(undocumented, k)
				}
			}
			for k := range shape {
				if !printed[k] {
					unprinted = append(unprinted, k)
				}
			}
			sort.Strings(undocumented)
			sort.Strings(unprinted)
			assert.Empty(t, undocumented, "%s --json prints keys the README does not name", c.name)
			assert.Empty(t, unprinted, "the README's %s --json shape names keys it never prints", c.name)
		})
	}
}

// walkJSONFields calls fn for every key a value of type typ can print
// with encoding/json: the fields of its structs (an embedded struct's as
// its own, a field without a tag under its Go name), through pointers,
// slices and the values of maps (a map's keys are data, not keys), down to
// bytes (json.RawMessage: another command's object) and time.Time (a
// string).
func walkJSONFields(typ reflect.Type, fn func(owner reflect.Type, f reflect.StructField, name string)) {
	switch typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		if typ.Elem().Kind() == reflect.Uint8 {
			return
		}
		walkJSONFields(typ.Elem(), fn)
	case reflect.Struct:
		if typ == reflect.TypeOf(time.Time{}) {
			return
		}
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-" || !f.IsExported():
				continue
			case f.Anonymous && name == "":
				walkJSONFields(f.Type, fn)
				continue
			case name == "":
				name = f.Name
			}
			fn(typ, f, name)
			walkJSONFields(f.Type, fn)
		}
	}
}

// readmeNamed is every name in backticks in the README's sections (each
// from its first string to its second).
func readmeNamed(t *testing.T, readme string, sections [][2]string) map[string]bool {
	named := map[string]bool{}
	for _, s := range sections {
		i := strings.Index(readme, s[0])
		require.GreaterOrEqual(t, i, 0, "README: no %q", s[0])
		j := strings.Index(readme[i+len(s[0]):], s[1])
		require.GreaterOrEqual(t, j, 0, "README: no %q after %q", s[1], s[0])
		for _, m := range backtickRe.FindAllStringSubmatch(readme[i:i+len(s[0])+j], -1) {
			for _, w := range identRe.FindAllString(m[1], -1) {
				named[w] = true
			}
		}
	}
	return named
}

// TestJSONListKeysAreAlwaysPrinted: `doctor --fix --json` left "fixed" out
// when nothing was fixed (omitempty), so `jq '.fixed[]'` failed. Every key
// the README names in a command's --json shape (the sections of
// TestReadmeJSONShapesAreWhatIsPrinted, read from the README) whose field
// is a list or a map is printed whatever it holds: no omitempty on it
// (PrintJSON prints a nil one as [] or {}).
func TestJSONListKeysAreAlwaysPrinted(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(b)
	for _, c := range readmeJSONShapes {
		named := readmeNamed(t, readme, c.sections)
		var dropped []string
		for _, v := range c.types {
			walkJSONFields(reflect.TypeOf(v), func(owner reflect.Type, f reflect.StructField, name string) {
				k := f.Type.Kind()
				list := (k == reflect.Slice && f.Type.Elem().Kind() != reflect.Uint8) || k == reflect.Map
				if list && named[name] && strings.Contains(f.Tag.Get("json"), ",omitempty") {
					dropped = append(dropped, owner.String()+"."+f.Name+" ("+name+")")
				}
			})
		}
		sort.Strings(dropped)
		assert.Empty(t, dropped, "%s --json: list keys the README names that are left out when empty", c.name)
	}
}
