package ops

import "github.com/ccsurgeon/ccsurgeon/chain"

// CutReadForTest says, for the cut of compress (strings over max when
// text, images and documents when images) of entry e whose line is raw,
// whether the index sends the line to be read and walked (needsCut) and
// whether the walk changes it (planCuts): for the external tests, which
// generate sessions with internal/benchgen (that imports ops).
func CutReadForTest(e *chain.Entry, raw []byte, max int, text, images bool) (read, changed bool) {
	c := entryCut{Max: max, Text: text, Images: images}
	_, _, _, changed = planCuts(nil, raw, c, false)
	return needsCut(e, c), changed
}

// SetChainCuts turns the chained cuts of --target-tokens on or off (the
// later cuts of a chain made by its first step) and returns what it was.
func SetChainCuts(on bool) bool {
	was := chainCuts
	chainCuts = on
	return was
}

// ChainsMade is how many entries' later cuts the chains have made so far.
func ChainsMade() int64 { return chainsMade.Load() }
