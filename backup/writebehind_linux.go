package backup

import (
	"os"
	"syscall"
)

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start writing dirty pages
// of the range out, without waiting.
const syncFileRangeWrite = 2

func startWriteback(f *os.File, off, n int64) {
	_ = syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWrite) // a hint: the fsync that follows decides
}
