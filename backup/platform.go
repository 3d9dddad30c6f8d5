package backup

// The operating-system mechanisms ccsurgeon's safety rests on, one API
// with the same promise on every platform (each in build-tagged files):
//
//   - openNoFollow opens a file without following a symlink at its name
//     (unix: O_NOFOLLOW, and O_NONBLOCK for reads so that a FIFO never
//     hangs; windows: FILE_FLAG_OPEN_REPARSE_POINT and a check that what
//     was opened is no reparse point). On windows the handle also shares
//     delete access, so that ccsurgeon's own open copy of a session never
//     stops it from replacing or removing it.
//   - lockExclusive takes an exclusive, non-waiting lock on an open file
//     that the OS drops when the process ends (unix: flock; windows:
//     LockFileEx); releaseLockFile (lock.go, the same everywhere) removes
//     the file, then drops the lock.
//   - changeTime is a file's change time, which a user cannot set back
//     (unix: st_ctime; windows: the ChangeTime of FILE_BASIC_INFO).
//   - fileOwner and chownLike keep a file's owner when root rewrites it
//     (windows: files have no uid/gid; nothing to keep).
//   - findWriter names another process that holds a file open for writing
//     (Linux reads /proc; elsewhere it finds nothing and the size and
//     modification-time guard is all there is: writers_other.go).
//   - replaceFile renames a finished temp file over its target (windows:
//     MoveFileEx with MOVEFILE_REPLACE_EXISTING, retried for a bounded
//     time while another program holds the target open).
//   - isNoSpace tells a full disk or quota from other write errors.
//   - canChangeDir tells whether this user may remove and create names in
//     a folder (unix: faccessat with the effective ids; windows: nil,
//     the ACL is only known by trying).
