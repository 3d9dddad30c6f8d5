// Package listdir lists a folder's entries by a pattern on their names.
package listdir

import (
	"os"
	"path/filepath"
	"sort"
)

// Matching returns the paths of the entries of the folder dir whose names
// match pattern (filepath.Match: one name, no folder), sorted; none when
// dir cannot be listed. It is filepath.Glob(filepath.Join(dir, pattern))
// without reading dir as a pattern: a folder name holding a pattern
// character (`My [old] home`, `backup[1]`, a backslash off Windows) made
// Glob find nothing beneath it, and a session's subagents, the client's
// records of the sessions it has open, and ccsurgeon's journals were not
// seen. Every listing of a folder by pattern goes through here.
func Matching(dir, pattern string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	var out []string
	for _, n := range names {
		if ok, err := filepath.Match(pattern, n); err == nil && ok {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Strings(out)
	return out
}
