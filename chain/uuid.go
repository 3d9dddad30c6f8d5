package chain

// IsUUID reports whether s is a UUID written 8-4-4-4-12 in hex digits of
// either case (what github.com/google/uuid parses at length 36): the one
// check every package uses for "this string is an id" (session file and
// folder names, uuid fields, values never taken for a secret). ParseID is
// stricter: only the canonical lowercase form the client writes, which
// String gives back.
func IsUUID[T ~string | ~[]byte](s T) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
