package ops_test

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain runs more tests side by side than go test's default of one per
// core (-parallel = GOMAXPROCS), unless -parallel is given. Most of this
// package's time is real clients resuming sessions, and a client does
// not keep a core busy: a test resuming two sessions one after the other
// used 0.64 of a core over its run (perf stat, 1.50 CPU-s in 2.34 s), so
// two tests at a time left about a third of two cores idle while ops ran
// alone at the end of the suite. Half as many again fills them without
// piling up clients on a machine that is busy with other packages.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		n := runtime.GOMAXPROCS(0)
		_ = flag.Set("test.parallel", strconv.Itoa(n+(n+1)/2))
	}
	os.Exit(m.Run())
}
