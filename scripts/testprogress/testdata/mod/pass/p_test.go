package pass

import "testing"

func TestA(t *testing.T) {}

func TestB(t *testing.T) {
	for _, n := range []string{"one", "two"} {
		t.Run(n, func(t *testing.T) { t.Parallel() })
	}
}
