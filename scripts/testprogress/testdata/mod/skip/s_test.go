package skip

import "testing"

const reason = "../shared/corpus not found beside the checkout (set CCSURGEON_CORPUS to the corpus folder)"

func TestCorpusOnly(t *testing.T) { t.Skip(reason) }

func TestCorpusParallel(t *testing.T) {
	t.Parallel()
	t.Skip(reason)
}

func TestMixed(t *testing.T) {
	t.Run("corpus", func(t *testing.T) { t.Skip(reason) })
	t.Log("the testdata part ran")
}

func TestOther(t *testing.T) { t.Skipf("needs %s", "tmux") }

func TestNoReason(t *testing.T) { t.SkipNow() }

func TestRuns(t *testing.T) {}
