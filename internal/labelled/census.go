package labelled

import (
	"fmt"
	"strings"
)

// Census is what a labelled set holds, counted without running any
// detector: the blind sets' composition tests check it against what their
// headers promise, so the sets stay blind.
type Census struct {
	Secrets    map[string]int // secrets per family
	All        int            // secrets in all
	Kinds      int            // distinct kinds with a secret
	NonSecrets int            // labelled non-secrets (fp, fptmpl)
	// Problems are records a set must not hold: a kind written
	// FAMILY/SHAPE whose FAMILY is not one of Families (a misspelt family
	// would silently fall to other-saas), and a secret that is not
	// generated or not in its text (it could never be judged).
	Problems []string
}

// TakeCensus counts exs.
func TakeCensus(exs []Example) Census {
	c := Census{Secrets: map[string]int{}}
	kinds := map[string]bool{}
	for _, e := range exs {
		fam, _, _ := strings.Cut(e.Kind, "/")
		if Family(e.Kind) != fam {
			c.Problems = append(c.Problems, fmt.Sprintf("kind %q: family %q is not one of internal/labelled's", e.Kind, fam))
		}
		if !e.TP {
			c.NonSecrets++
			continue
		}
		c.Secrets[fam]++
		c.All++
		kinds[e.Kind] = true
		if e.Secret == "" || !strings.Contains(e.Text, e.Secret) {
			c.Problems = append(c.Problems, fmt.Sprintf("kind %q: the secret %q is not in its text", e.Kind, e.Secret))
		}
	}
	c.Kinds = len(kinds)
	return c
}
