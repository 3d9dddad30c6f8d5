package chain

// IsUUID reports whether s is a UUID written 8-4-4-4-12 in hex digits of
// either case (what github.com/google/uuid parses at length 36): the one
// check every package uses for "this string is an id" (session file and
// folder names, uuid fields, values never taken for a secret). ParseID is
// stricter: only the canonical lowercase form the client writes, which
// String gives back.
func IsUUID[T ~string | ~[]byte](s T) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	for _, i := range uuidHexAt {
		if !uuidHex[s[i]] {
			return false
		}
	}
	return true
}

// uuidHexAt are the places of the 32 hex digits of a UUID; uuidHex the
// digits of either case (a table: the comparisons per byte were a tenth
// of a clone's renaming).
var (
	uuidHexAt = [32]uint8{0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22,
		24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35}
	uuidHex = func() (t [256]bool) {
		for _, r := range "0123456789abcdefABCDEF" {
			t[r] = true
		}
		return t
	}()
)
