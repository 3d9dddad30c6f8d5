package backup

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/zeebo/xxh3"
)

// A backup records a checksum of every file it saves, and a restore
// checks it before a byte of the file goes back into the session. Since
// manifest version 2 it is XXH3-128 (hex, as `xxh128sum` prints it): a
// check against damage (a disk, an editor, a script), not against
// someone who can write the config dir, who could rewrite the manifest
// too. Version 1 recorded sha256, whose ~1.8 GB/s took 0.18 s of CPU of
// a move of 315 MB on a 2-core machine, where the whole move is CPU
// bound; XXH3 reads ~18 GB/s (BENCHMARKS.md, stop 45). A restore checks
// every checksum a manifest records: the ones an older ccsurgeon wrote
// (sha256) are still checked.
const manifestVersion = 2

// newChecksum returns the hash of a file saved in a backup.
func newChecksum() hash.Hash { return xxh3.New128() }

// sumOf is the checksum h has read, as the manifest records it.
func sumOf(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// errNoChecksum: a manifest's file with no checksum to check.
var errNoChecksum = errors.New("no checksum recorded")

// verifyChecksum checks the content of the regular file at path (below
// root, reached as openRegularBeneath does) against every checksum the
// manifest records for f, in one read.
func verifyChecksum(root, path string, f BackupFile) error {
	type check struct {
		name, want string
		h          hash.Hash
	}
	var checks []check
	if f.XXH128 != "" {
		checks = append(checks, check{"xxh128", f.XXH128, newChecksum()})
	}
	if f.SHA256 != "" {
		checks = append(checks, check{"sha256", f.SHA256, sha256.New()})
	}
	if len(checks) == 0 {
		return fmt.Errorf("%s: %w", path, errNoChecksum)
	}
	in, err := openRegularBeneath(root, path)
	if err != nil {
		return err
	}
	defer in.Close()
	ws := make([]io.Writer, len(checks))
	for i, c := range checks {
		ws[i] = c.h
	}
	if _, err := copyAll(io.MultiWriter(ws...), in); err != nil {
		return err
	}
	for _, c := range checks {
		if sumOf(c.h) != c.want {
			return fmt.Errorf("%s: %s checksum mismatch", path, c.name)
		}
	}
	return nil
}
