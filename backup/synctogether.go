package backup

import "errors"

// syncsTogetherFn, syncfsFn and localDiskFn are syncsTogether, syncfs1 and
// localDisk (a test takes the other branch, makes syncfs fail, or makes a
// folder's file system one syncfs is not trusted on).
var (
	syncsTogetherFn = syncsTogether
	syncfsFn        = syncfs1
	localDiskFn     = localDisk
)

// errNotTogether: a folder is on a file system whose syncfs is not
// trusted to make its files durable (a network or FUSE file system, whose
// server an fsync reaches and a syncfs may not): its files are fsynced
// one by one.
var errNotTogether = errors.New("not on a local disk file system")
