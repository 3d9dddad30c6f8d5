package chain

import (
	"fmt"
	"strconv"
)

// Plural is "1 entry", "2 entries": n with the word in the right number.
// Every count a person reads goes through it, never "entry(s)".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// HumanTokens is the one format of a token count a person reads: 1234 ->
// "1,234", 123456 -> "123k", 1234567 -> "1.23M" (JSON keeps the integer).
func HumanTokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 100_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	case n >= 1000:
		return fmt.Sprintf("%d,%03d", n/1000, n%1000)
	}
	return fmt.Sprint(n)
}
