package chain

import "strconv"

// Plural is "1 entry", "2 entries": n with the word in the right number.
// Every count a person reads goes through it, never "entry(s)".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
