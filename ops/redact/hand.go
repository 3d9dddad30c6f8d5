package redact

import "strings"

// Hand-written matchers for the rules that run most often on text dense
// with secrets (a PEM block every few hundred bytes, a curl -u or an
// aws_secret_access_key on every other line). Each one returns exactly what
// its rule's regexp returns on the same window, groups included: the rule
// keeps its regexp, which the tests run beside the matcher
// (TestHandMatchersAgreeWithRegexp) and which still serves the unfiltered
// mode of the tests.

// pemClass is [ A-Z0-9]: the bytes of a PEM label.
var pemClass = func() (t [256]bool) {
	t[' '] = true
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	return
}()

// pemLabelEnd matches [ A-Z0-9]*PRIVATE KEY(?: BLOCK)?----- at win[i:] and
// returns the end of the match, or -1. The label is the whole run of
// [ A-Z0-9] (a '-' must follow it), so the run has to end with
// "PRIVATE KEY" or "PRIVATE KEY BLOCK".
func pemLabelEnd(win string, i int) int {
	j := i
	for j < len(win) && pemClass[win[j]] {
		j++
	}
	if !strings.HasPrefix(win[j:], "-----") {
		return -1
	}
	label := win[i:j]
	if strings.HasSuffix(label, "PRIVATE KEY") || strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return j + 5
	}
	return -1
}

// matchPEMBlock is the anchored
// -----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----:
// the header, then the first END line that completes the pattern.
func matchPEMBlock(win string) []int {
	if !strings.HasPrefix(win, "-----BEGIN") {
		return nil
	}
	h := pemLabelEnd(win, len("-----BEGIN"))
	if h < 0 {
		return nil
	}
	for off := h; ; {
		k := strings.Index(win[off:], "-----END")
		if k < 0 {
			return nil
		}
		if e := pemLabelEnd(win, off+k+len("-----END")); e >= 0 {
			return []int{0, e}
		}
		off += k + 1
	}
}

// matchPEMBody is the anchored
// -----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:\\[nr]|[A-Za-z0-9+/=\s→])+:
// the header and as much of a body as follows it (a truncated block). The
// alternatives start with different bytes, so the greedy loop has one way
// to go.
func matchPEMBody(win string) []int {
	if !strings.HasPrefix(win, "-----BEGIN") {
		return nil
	}
	h := pemLabelEnd(win, len("-----BEGIN"))
	if h < 0 {
		return nil
	}
	j := h
	for j < len(win) {
		c := win[j]
		switch {
		case pemBodyClass[c]:
			j++
		case c == '\\' && j+1 < len(win) && (win[j+1] == 'n' || win[j+1] == 'r'):
			j += 2
		case c == 0xE2 && j+2 < len(win) && win[j+1] == 0x86 && win[j+2] == 0x92: // →
			j += 3
		default:
			if j == h {
				return nil
			}
			return []int{0, j}
		}
	}
	if j == h {
		return nil
	}
	return []int{0, j}
}

// pemBodyClass is [A-Za-z0-9+/=\s] (\s: \t \n \f \r and space).
var pemBodyClass = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isB64(byte(c)) || c == '=' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
	}
	return
}()
