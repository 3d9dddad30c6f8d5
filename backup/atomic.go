package backup

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultMode is the permission used for files ccsurgeon creates.
const DefaultMode os.FileMode = 0o600

// dirMode is the permission used for directories ccsurgeon creates.
const dirMode os.FileMode = 0o700

// bufSize is the write buffer used when streaming rendered output.
const bufSize = 1 << 20

// writers are the write buffers of the files being written, reused: a new
// session with a thousand sidecar files made a megabyte of buffer for each
// (a tenth of the CPU of such a clone, in allocating and zeroing them).
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufSize) }}

// tmpMarker is part of every temp file name so leftovers are recognisable.
const tmpMarker = ".ccsurgeon-tmp-"

// TestHook, when set (tests only), is called at named steps of every
// write, so that the fault-injection tests (and the CLI's kill -9 trials)
// stop the process at deterministic points.
var TestHook func(step string)

func hook(step string) {
	if TestHook != nil {
		TestHook(step)
	}
}

// WriteFileAtomic replaces path with the output of render, crash-safely: the
// output is streamed through a buffer into a temp file in the same directory
// (".<name>.ccsurgeon-tmp-*"), fsynced, renamed over path, and the directory is
// fsynced. The file keeps the existing file's permissions and owner, else
// gets mode (DefaultMode if 0). A symlink at path is refused (ErrSymlink).
// On any error the temp file is removed and the original is left untouched.
func WriteFileAtomic(path string, mode os.FileMode, render func(w io.Writer) error) error {
	return writeAtomic(path, mode, render, true)
}

func writeAtomic(path string, mode os.FileMode, render func(w io.Writer) error, sync bool) error {
	if err := refuseNode(path); err != nil {
		return err
	}
	target := path
	tmp, err := writeTemp(target, mode, render, sync)
	if err != nil {
		return err
	}
	hook("atomic-temp-written")
	if err := replaceFile(tmp, target); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", target, err)
	}
	if !sync {
		return nil
	}
	return syncDir(filepath.Dir(target))
}

// WriteTo writes render's output to path (for "-o PATH"; the caller handles
// "-" = stdout) atomically. An existing file is replaced only when force is
// set (ErrExists otherwise), and keeps its mode and owner; a new file gets
// mode 0600. A symlink is never written through. The parent directory must
// exist.
// It does not fsync: an output file of the user's choosing is as durable as
// one cp writes (the session itself is not touched), and a render that fails
// still leaves nothing behind.
func WriteTo(path string, force bool, render func(w io.Writer) error) error {
	if err := CheckWriteTo(path, force); err != nil {
		return err
	}
	return writeAtomic(path, DefaultMode, render, false)
}

// CheckWriteTo is what WriteTo refuses before it writes (a symlink or
// other node that is not a regular file; an existing file unless force),
// for a caller that checks its destination before the work.
func CheckWriteTo(path string, force bool) error {
	if err := refuseNode(path); err != nil {
		var e *SymlinkError
		if errors.As(err, &e) {
			e.Output = true
		}
		return err
	}
	if !force {
		if _, err := os.Lstat(path); err == nil {
			return &ExistsError{Path: path}
		}
	}
	return nil
}

// CreateNew writes render's output to a new file at path (mode 0600, parent
// directories created with mode 0700) and fails with ErrExists if path already
// exists — also if it appears while rendering: the finished temp file is
// hard-linked to the final name, which the kernel refuses if it exists.
func CreateNew(path string, render func(w io.Writer) error) error {
	if err := createNew(path, render, true); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// DirSync gathers the folders that new files were linked into, so that a
// batch of new files pays one folder fsync per folder instead of one per
// file. It is safe for concurrent use.
type DirSync struct {
	mu   sync.Mutex
	dirs map[string]bool
	made map[string]bool // folders its CreateNew made (no killed run left a temp file there)
}

// CreateNew is CreateNew without the folder's fsync: the file's data is
// durable when it returns, its name once Sync has run.
func (d *DirSync) CreateNew(path string, render func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	d.mu.Lock()
	if d.made == nil {
		d.made = map[string]bool{}
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, dirMode); err != nil {
			d.mu.Unlock()
			return fmt.Errorf("create directory %s: %w", dir, err)
		}
		d.made[dir] = true
	}
	made := d.made[dir]
	d.mu.Unlock()
	if err := createNew(path, render, !made); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dirs == nil {
		d.dirs = map[string]bool{}
	}
	d.dirs[dir] = true
	return nil
}

// Sync fsyncs every folder a file was created in.
func (d *DirSync) Sync() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for dir := range d.dirs {
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	d.dirs = nil
	return nil
}

func createNew(path string, render func(w io.Writer) error, sweep bool) error {
	if _, err := os.Lstat(path); err == nil {
		return existsError(path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	tmp, err := writeTempLike(path, nil, DefaultMode, render, true, sweep)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	hook("create-before-link")
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return existsError(path)
		}
		// Filesystems without hard links: fall back to check-then-rename.
		// The window between the check and the rename is tiny.
		if _, serr := os.Lstat(path); serr == nil {
			return existsError(path)
		}
		if err := replaceFile(tmp, path); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
	}
	return nil
}

func existsError(path string) error {
	return &Error{
		Msg:  fmt.Sprintf("refusing to overwrite existing file %s", path),
		Hint: "choose another name or remove the file first",
		Err:  ErrExists,
	}
}

// refuseSymlink returns a *SymlinkError when path is a
// symlink: ccsurgeon never writes, replaces or deletes through one (a link
// may lead out of the config dir), and never replaces the link itself.
func refuseSymlink(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	target, _ := os.Readlink(path)
	return symlinkError(path, target)
}

// refuseNode refuses to replace what is at path unless it is a regular
// file (or nothing): a symlink (refuseSymlink), a folder, a FIFO, a socket
// or a device is never replaced by a file, --force or not.
func refuseNode(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case err != nil || fi.Mode().IsRegular():
		return nil
	case fi.Mode()&os.ModeSymlink != 0:
		return refuseSymlink(path)
	case fi.IsDir():
		return &Error{Msg: fmt.Sprintf("%s is a folder", path),
			Hint: "name a file, e.g. " + filepath.Join(path, "out.jsonl") + ", or end it in '" + string(filepath.Separator) + "' to write the session with its files into it"}
	}
	return &NotRegularError{Path: path}
}

func symlinkError(path, target string) error {
	return &SymlinkError{Path: path, Target: target}
}

// writeTemp renders into a fresh temp file next to target and fsyncs it. It
// returns the temp path; on error nothing is left behind. The mode is the
// existing target's permission bits, else mode (DefaultMode if 0). Its
// owner is the existing target's, else the folder's (when ccsurgeon runs as
// root, so that the user whose session it is can still append to it).
func writeTemp(target string, mode os.FileMode, render func(w io.Writer) error, sync bool) (tmpPath string, err error) {
	return writeTempLike(target, nil, mode, render, sync, true)
}

// writeTempLike is writeTemp for a file that takes the owner and mode of
// like (when not nil) rather than of what is at target: a file a move puts
// in a new place is its old file's. sweep: first remove the temp files of
// target that killed runs left (a folder this run made has none: reading
// it for each of a thousand new files made a new session's sidecars
// quadratic).
func writeTempLike(target string, like os.FileInfo, mode os.FileMode, render func(w io.Writer) error, sync, sweep bool) (tmpPath string, err error) {
	owner, serr := os.Lstat(target)
	if like != nil {
		owner, serr = like, nil
	}
	if serr == nil {
		mode = owner.Mode().Perm()
	} else if mode == 0 {
		mode = DefaultMode
	}
	if sweep {
		removeStaleTemps(target)
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	if serr != nil {
		owner, _ = os.Stat(dir)
	}
	f, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return "", wrapIOError(fmt.Sprintf("create temp file for %s", target), err)
	}
	name := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(name)
		}
	}()
	if err = keepOwner(f, owner); err != nil {
		return "", fmt.Errorf("chown %s: %w", name, err)
	}
	if err = f.Chmod(mode.Perm()); err != nil {
		return "", fmt.Errorf("chmod %s: %w", name, err)
	}
	var out io.Writer = f
	if sync {
		out = &writeBehind{f: f}
	}
	bw := writers.Get().(*bufio.Writer)
	bw.Reset(out)
	defer func() {
		bw.Reset(nil) // holds no file
		writers.Put(bw)
	}()
	if err = render(bw); err != nil {
		return "", wrapIOError(fmt.Sprintf("write %s", target), err)
	}
	if err = bw.Flush(); err != nil {
		return "", wrapIOError(fmt.Sprintf("write %s", target), err)
	}
	if sync {
		if err = f.Sync(); err != nil {
			return "", wrapIOError(fmt.Sprintf("fsync %s", target), err)
		}
	}
	if err = f.Close(); err != nil {
		return "", wrapIOError(fmt.Sprintf("close %s", target), err)
	}
	return name, nil
}

// wrapIOError turns ENOSPC/EDQUOT into a clear *Error; other errors are
// wrapped with context.
func wrapIOError(what string, err error) error {
	if isNoSpace(err) {
		return &Error{
			Msg:  fmt.Sprintf("%s: no space left on device (the original file was not modified)", what),
			Hint: "free some disk space and retry",
			Err:  errors.Join(ErrNoSpace, err),
		}
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// syncDir fsyncs a directory so that renames/creates in it are durable.
// Filesystems and platforms that cannot fsync directories are tolerated.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("fsync directory %s: %w", dir, err)
	}
	return nil
}

// staleTempAge is the age after which a temp file left by a killed ccsurgeon
// is deleted by the next write in the same directory.
const staleTempAge = time.Hour

// removeStaleTemps deletes the temp files for target left by runs that
// were killed (their process is gone). Errors are ignored.
func removeStaleTemps(target string) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+tmpMarker+"*"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && tempOwnerGone(filepath.Base(m), fi) {
			os.Remove(m)
		}
	}
}

func globEscape(s string) string {
	return strings.NewReplacer("*", "\\*", "?", "\\?", "[", "\\[", "\\", "\\\\").Replace(s)
}

// keepOwner gives f the owner of like (nil: nothing to do) when they
// differ; only root can, and only root needs to (a user's files are
// already theirs).
func keepOwner(f *os.File, like os.FileInfo) error {
	return chownLike(f, like)
}

// chownIDs gives the file at path the owner uid:gid, as root (a file put
// back by restore is its user's again); a user, whose file is theirs
// already, gives back its group (keepGroup).
func chownIDs(path string, uid, gid int) error {
	if os.Geteuid() != 0 {
		return keepGroup(path, gid)
	}
	return os.Lchown(path, uid, gid)
}

// keepOwnerPath is keepOwner for the file or folder at path (never
// through a link).
func keepOwnerPath(path string, like os.FileInfo) error {
	if like == nil || os.Geteuid() != 0 {
		return nil
	}
	f, err := openNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return keepOwner(f, like)
}

// mkdirAllLike creates dir and its missing parents (mode 0700); as root
// each folder it creates gets like's owner (a user's session moved into a
// new project folder stays in a folder the user can write).
func mkdirAllLike(dir string, like os.FileInfo) error {
	var made []string
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	for _, d := range made {
		if err := keepOwnerPath(d, like); err != nil {
			return err
		}
	}
	return nil
}

// isTempName reports whether a file name is one of our temp files.
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tmpMarker)
}
