package backup

import (
	"fmt"
	"path/filepath"
	"strings"
)

// beneathParts are the names from root down to path, which must be below
// root (openBeneath, removeBeneath: beneath_unix.go, beneath_windows.go).
func beneathParts(root, path string) ([]string, error) {
	// both as absolute paths: a relative config dir names the same files
	if a, err := filepath.Abs(root); err == nil {
		root = a
	}
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("backup: %s is not inside %s", path, root)
	}
	return strings.Split(rel, string(filepath.Separator)), nil
}
