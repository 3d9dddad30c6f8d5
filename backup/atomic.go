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

// copyBufs holds the buffers copyAll reads through: a move of 859 files
// made (and the collector cleared) a fresh megabyte for each.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// copyAll copies src to dst through a pooled buffer (io.Copy on an
// *os.File would make its own: File.WriteTo hides the buffer given).
func copyAll(dst io.Writer, src io.Reader) (int64, error) {
	b := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(b)
	return io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, *b)
}

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

// writeFileAtomicBeneath is WriteFileAtomic for one of ccsurgeon's own
// files below root (a journal, a mark, a manifest): its temp file made,
// renamed over path and its folder fsynced from root down, following no
// link (renderTempBeneath, renameBeneath): a folder on the way swapped for
// a link leads no file elsewhere (*SymlinkError). It gets mode.
func writeFileAtomicBeneath(root, path string, mode os.FileMode, render func(w io.Writer) error, sync bool) error {
	f, err := renderTempBeneath(root, path, nil, mode, render)
	if err != nil {
		return err
	}
	tmp, err := finishTemp(f, path, sync, root)
	if err != nil {
		return err
	}
	hook("atomic-temp-written")
	if err := renameBeneath(root, tmp, path); err != nil {
		removeBeneath(root, tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if !sync {
		return nil
	}
	return syncDirBeneath(root, filepath.Dir(path))
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
// directories created with mode 0700 below root, from root down following
// no link) and fails with ErrExists if path already exists — also if it
// appears while rendering: the finished temp file is hard-linked to the
// final name, which the kernel refuses if it exists.
func CreateNew(root, path string, render func(w io.Writer) error) error {
	if err := createNew(root, path, render, true); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// DirSync writes a batch of new files (the sidecars of a new session or of
// a share folder) and makes them durable together, so that a batch of
// hundreds of files does not wait on one fsync after another: the caller
// writes each file under its name (O_EXCL: never over an existing file),
// and its fsync and close run in the background, up to syncsInFlight at a
// time (their waits on the disk overlap; a journalling file system can
// commit them together). No temp file: the batch is not visible until
// Last, so a file need not appear whole, and an unlinked temp file per
// file made the next creates slower on ext4 without a journal (its inode
// allocator steps over recently freed inodes: up to 42% of the samples of
// a clone of dense in one profile, BENCHMARKS.md). Last writes the
// file that makes the batch visible (a new session's main transcript)
// through a temp file, and links it into place only once every file of the
// batch and every folder they are in is durable. Every file of a batch is
// new: a crash can leave part of the batch, without its last file, never
// a changed or removed file. It is safe for concurrent use. After a
// failure, Wait (or Last) must be called before what the batch made is
// removed: the background steps may still run.
type DirSync struct {
	// Base is the folder every folder the batch makes is made below,
	// from Base down following no link (a new session: the config dir; a
	// share folder: the folder -o names). A folder on the way swapped for
	// a link is refused (*SymlinkError): no folder, and then no file, is
	// made where it leads. Empty: folders are made by name.
	Base string
	// Like gives a folder the batch makes below Base the folder it stands
	// for (a new session's <id>/subagents/: its original's), whose mode
	// (and as root owner) it gets; nil, or nil for a folder: 0700.
	Like func(dir string) os.FileInfo
	// Roots are folders the batch made itself (a new session's own
	// folders): every folder below one is made by CreateNew one level at a
	// time and never reached through a link (*SymlinkError), so that a
	// link planted in one after it was made leads no file elsewhere.
	Roots []string
	mu    sync.Mutex
	dirs  map[string]bool
	at    map[string]*os.File // the folders files are made in, open (folder)
	made  []madeNode          // what the batch made, in order (RemoveMade)
	err   error               // the first failure of a background step
	wg    sync.WaitGroup
	sem   chan struct{}
	// together: the batch is made durable by one syncfs of each file
	// system its folders are on (syncsTogether, and a Base: the folders'
	// handles are the batch's), not by an fsync a file; decided at the
	// first file (grouped)
	together *syncGroup
	grouped  bool
	each     map[string]bool // folders on a file system syncfs is not trusted on
}

// syncsInFlight is how many files of a DirSync are fsynced at once.
const syncsInFlight = 32

// CreateNew writes a new file at path (ErrExists if there is one, also
// if it appears meanwhile) and returns once its bytes are written: they
// are durable once Wait has returned nil.
func (d *DirSync) CreateNew(path string, render func(w io.Writer) error) error {
	if TestHook != nil {
		// the tests put something at path, or beside it, as another
		// process would between a check and the create
		TestHook("dirsync-create:" + path)
	}
	dir := filepath.Dir(path)
	d.mu.Lock()
	if d.err != nil {
		err := d.err
		d.mu.Unlock()
		return err
	}
	if d.sem == nil {
		d.sem = make(chan struct{}, syncsInFlight)
	}
	d.groupLocked()
	if d.dirs == nil {
		d.dirs = map[string]bool{}
	}
	if !d.dirs[dir] {
		if err := d.mkdir(dir); err != nil {
			d.mu.Unlock()
			return err
		}
		d.dirs[dir] = true // fsynced by Wait
	}
	// the folder opened once from Base down, following no link: every
	// file of the batch in it is made from that handle (openat), so that
	// a folder swapped for a link since leads no file elsewhere
	dirf, err := d.folder(dir)
	together := d.together != nil && !d.each[dir]
	d.mu.Unlock()
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	f, err := renderNew(dirf, path, render)
	if err != nil {
		return err
	}
	d.record(path, f.Stat)
	if together { // made durable with the whole batch, by Wait
		return finishNew(f, path, false, nil)
	}
	d.sem <- struct{}{}
	d.wg.Add(1)
	// the caller waits until the fsync is issued: a goroutine just made
	// waits for the caller to block or be preempted (up to a time slice:
	// 10 ms) before it runs, and the caller renders its next file without
	// blocking, so that each fsync started late (~9 ms on average in a
	// clone of the damaged shape) and the batch, not the main transcript,
	// ended the clone (BENCHMARKS.md 2026-11-27 sidecars2). Waiting here
	// hands the core to it at once; the caller is back as soon as the
	// fsync waits on the disk.
	issued := make(chan struct{})
	go func() {
		defer d.wg.Done()
		defer func() { <-d.sem }()
		if err := finishNew(f, path, true, func() { close(issued) }); err != nil {
			d.mu.Lock()
			if d.err == nil {
				d.err = err
			}
			d.mu.Unlock()
		}
	}()
	<-issued
	return nil
}

// mkdir makes the folder dir and its missing parents from d.Base down,
// following no link (mkdirBeneath): a link or a node that is not a folder
// on the way is refused. The folders it makes below one of d.Roots are
// the batch's (RemoveMade); a batch with no Base makes those below a root
// from the root's parent down, and the others by name.
// Every folder on the way (the root too) is fsynced by Wait: its entry
// in its parent is part of the batch, as the files are (d.mu is held).
func (d *DirSync) mkdir(dir string) error {
	under := "" // the root dir is below
	for _, root := range d.Roots {
		if rel, err := filepath.Rel(root, dir); err == nil && (filepath.IsLocal(rel) || rel == ".") {
			under = root
			break
		}
	}
	base := d.Base
	if under != "" {
		d.dirs[filepath.Dir(under)] = true // the root's entry (made by the caller)
		if base == "" {
			base = filepath.Dir(under) // the root itself opened O_NOFOLLOW too
		}
	}
	if base == "" {
		if err := os.MkdirAll(dir, dirMode); err != nil {
			return fmt.Errorf("create directory %s: %w", dir, err)
		}
		return nil
	}
	hook("mkdir:" + dir)
	made, err := mkdirBeneath(base, dir, d.Like)
	if err == nil {
		hook("made:" + dir) // (before anything is written in it)
	}
	for _, p := range made {
		d.dirs[filepath.Dir(p)] = true // fsynced by Wait
		if rel, rerr := filepath.Rel(under, p); under != "" && rerr == nil && filepath.IsLocal(rel) {
			d.recordLocked(p, func() (os.FileInfo, error) { return os.Lstat(p) })
			if err == nil && filepath.Clean(p) == filepath.Clean(under) {
				// the root, which the caller made (and marked), is gone:
				// the batch writes only into folders it knows
				err = &os.PathError{Op: "open", Path: under, Err: os.ErrNotExist}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	return nil
}

// makeDirs makes dir and its missing parents below d.Base (makeDirs), by
// name when the batch has no Base.
func (d *DirSync) makeDirs(dir string) error {
	if d.Base == "" {
		return os.MkdirAll(dir, dirMode)
	}
	return makeDirs(d.Base, dir, d.Like)
}

// groupLocked decides, at the batch's first file, whether it is made
// durable together: by one syncfs of each file system its folders are on
// (syncsTogether), which needs the folders' handles, held from before
// anything is written in them (folder), for syncfs to report every write
// error met since; a batch made by name (no Base) fsyncs each file. d.mu
// is held.
func (d *DirSync) groupLocked() {
	if d.grouped {
		return
	}
	d.grouped = true
	if d.Base != "" && syncsTogetherFn() {
		d.together = &syncGroup{}
	}
}

// folder returns the handle of the folder dir the batch makes files in,
// opened from d.Base down following no link the first time (nil with no
// Base, and on windows: files made by name); a batch made durable
// together keeps a handle on the folder's file system from then on. d.mu
// is held.
func (d *DirSync) folder(dir string) (*os.File, error) {
	if d.Base == "" {
		return nil, nil
	}
	if f, ok := d.at[dir]; ok {
		return f, nil
	}
	f, err := openDirBeneath(d.Base, dir)
	if err != nil {
		return nil, err
	}
	if d.together != nil {
		if err := d.together.add(f, dir); errors.Is(err, errNotTogether) {
			if d.each == nil {
				d.each = map[string]bool{}
			}
			d.each[dir] = true // its files fsynced one by one
		} else if err != nil {
			f.Close()
			return nil, err
		}
	}
	if d.at == nil {
		d.at = map[string]*os.File{}
	}
	d.at[dir] = f
	return f, nil
}

// closeFolders closes the folder handles once the batch is over (Last,
// RemoveMade: no CreateNew is running); a batch that ends otherwise has
// them closed by the collector. d.mu is held.
func (d *DirSync) closeFolders() {
	for _, f := range d.at {
		if f != nil {
			f.Close()
		}
	}
	d.at = nil
	if d.together != nil {
		d.together.close() // (a folder opened again is added again)
	}
}

// madeNode is a file or folder a DirSync made: its path, and what was
// made there (to tell it from what another process may have put at that
// path since).
type madeNode struct {
	path string
	fi   os.FileInfo
}

func (d *DirSync) record(path string, stat func() (os.FileInfo, error)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.recordLocked(path, stat)
}

func (d *DirSync) recordLocked(path string, stat func() (os.FileInfo, error)) {
	if fi, err := stat(); err == nil {
		d.made = append(d.made, madeNode{path, fi})
	}
}

// Mkdir makes the new folder dir (its parent must exist) as part of the
// batch: a node already there, or put there meanwhile, is refused
// (ErrExists), so that the batch writes only into folders it made.
// RemoveMade removes it (when empty). Below d.Base it is made from Base
// down, following no link (a link on the way: *SymlinkError); with no
// Base, by name (the folder -o names, the user's).
func (d *DirSync) Mkdir(dir string) error {
	if TestHook != nil {
		TestHook("dirsync-mkdir:" + dir)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	mkdir := func() error { return os.Mkdir(dir, dirMode) }
	if d.Base != "" {
		mkdir = func() error { return mkdirOneBeneath(d.Base, dir, d.Like) }
	}
	if err := mkdir(); err != nil {
		if errors.Is(err, os.ErrExist) {
			return existsError(dir)
		}
		if cw := createError(dir, filepath.Dir(dir), err); cw != nil {
			return cw
		}
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	if d.dirs == nil {
		d.dirs = map[string]bool{}
	}
	d.dirs[filepath.Dir(dir)] = true // fsynced by Wait
	d.recordLocked(dir, func() (os.FileInfo, error) { return os.Lstat(dir) })
	return nil
}

// RemoveMade is the clean-up of a failed batch: it waits for the
// background steps, then removes what the batch made, the last made
// first, and nothing else: a file or folder only while it is still the
// one the batch made at that path (not one another process put there
// since), a folder only once empty (what another process put in it
// stays, and so does the folder). The folders a DirSync made are those
// of Mkdir and those below its Roots.
func (d *DirSync) RemoveMade() {
	d.wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closeFolders()
	for k := len(d.made) - 1; k >= 0; k-- {
		m := d.made[k]
		if cur, err := os.Lstat(m.path); err == nil && os.SameFile(cur, m.fi) {
			os.Remove(m.path)
		}
	}
	d.made = nil
}

// Wait waits for the background steps of every file written so far, then
// fsyncs every folder a file was linked into: the files written are then
// durable under their names. It returns the first failure.
func (d *DirSync) Wait() error {
	d.wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return d.err
	}
	if d.together != nil {
		if err := d.together.sync(); err != nil {
			return wrapIOError("make the new files durable", err)
		}
	}
	for dir := range d.dirs {
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	d.dirs = nil
	return nil
}

// Last writes the new file at path that makes the batch visible (a new
// session's main transcript, which the client lists): its bytes are
// rendered and fsynced while the rest of the batch is still being written
// (written returns once the caller has handed every other file to
// CreateNew: it is called after the render, on every path) and while the
// batch's fsyncs run, and it is linked into place (then its folder
// fsynced) only once Wait has made the whole batch durable. A crash leaves
// either no file at path, or the file whole with every file of the batch.
// When Last returns, written has returned and the background steps are
// over, whatever the outcome; on a failure Last has left nothing at path
// (and a file that is there is not its: the caller must not remove it).
func (d *DirSync) Last(path string, render func(w io.Writer) error, written func() error) (err error) {
	var tmp string
	defer func() {
		werr := written()
		if err == nil {
			err = werr
		}
		if serr := d.Wait(); err == nil {
			err = serr
		}
		if err == nil {
			hook("create-before-link")
			if d.Base != "" {
				// from Base down, following no link: a folder swapped for
				// one since leads the name nowhere else
				if err = linkNewBeneath(d.Base, tmp, path); err == nil {
					if err = syncDirBeneath(d.Base, filepath.Dir(path)); err != nil {
						removeBeneath(d.Base, path) // this call's link
					}
				}
			} else if err = linkNew(tmp, path); err == nil {
				if err = syncDir(filepath.Dir(path)); err != nil {
					os.Remove(path) // this call's link: on a failure nothing is left at path
				}
			}
		}
		if tmp != "" && d.Base != "" {
			removeBeneath(d.Base, tmp)
		} else if tmp != "" {
			os.Remove(tmp)
		}
		d.mu.Lock()
		d.closeFolders() // the batch is over: written has returned
		d.mu.Unlock()
	}()
	if _, err := os.Lstat(path); err == nil {
		return existsError(path)
	}
	if err := d.makeDirs(filepath.Dir(path)); err != nil {
		return fmt.Errorf("create directory %s: %w", filepath.Dir(path), err)
	}
	// a batch made durable together holds its folder's file system before
	// a byte of it is written
	d.mu.Lock()
	d.groupLocked()
	together := d.together != nil
	if together {
		if _, err := d.folder(filepath.Dir(path)); err != nil {
			d.mu.Unlock()
			return fmt.Errorf("create %s: %w", path, err)
		}
		together = !d.each[filepath.Dir(path)]
	}
	d.mu.Unlock()
	var f *os.File
	if d.Base != "" {
		f, err = renderTempBeneath(d.Base, path, nil, DefaultMode, render)
	} else {
		f, err = renderTemp(path, nil, DefaultMode, render, true, true)
	}
	if err != nil {
		return err
	}
	tmp, err = finishTemp(f, path, !together, d.Base)
	return err
}

// linkNewBeneath is linkNew for a temp file and its name in one folder
// below root, reached from root without following a link.
func linkNewBeneath(root, tmp, path string) error {
	err := linkBeneath(root, tmp, path)
	if err == nil {
		return nil
	}
	var se *SymlinkError
	switch {
	case errors.Is(err, os.ErrExist):
		return existsError(path)
	case errors.As(err, &se):
		return err
	}
	// a file system without hard links: check, then rename (as linkNew)
	if _, serr := os.Lstat(path); serr == nil {
		return existsError(path)
	}
	if err := renameBeneath(root, tmp, path); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return nil
}

func createNew(root, path string, render func(w io.Writer) error, sweep bool) error {
	if _, err := os.Lstat(path); err == nil {
		return existsError(path)
	}
	dir := filepath.Dir(path)
	if err := makeDirs(root, dir, nil); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	tmp, err := writeTempLike(path, nil, DefaultMode, render, true, sweep)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	hook("create-before-link")
	return linkNew(tmp, path)
}

// finishNew fsyncs (when sync: issuing is called just before) and closes
// the new file f at path; on error the file is removed (it is the
// batch's: renderNew made it).
func finishNew(f *os.File, path string, sync bool, issuing func()) error {
	var err error
	if sync {
		if TestHook != nil {
			TestHook("new-file-syncing:" + path)
		}
		issuing()
		if err = f.Sync(); err != nil {
			err = wrapIOError(fmt.Sprintf("fsync %s", path), err)
		}
	}
	if cerr := f.Close(); cerr != nil && err == nil {
		err = wrapIOError(fmt.Sprintf("close %s", path), cerr)
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	if sync {
		hook("new-file-synced")
	}
	hook("new-file-done")
	return nil
}

// linkNew gives the finished temp file tmp the name path, refusing
// (ErrExists) when path exists, also if it appeared meanwhile: the kernel
// refuses a hard link over an existing name.
func linkNew(tmp, path string) error {
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
	f, err := renderTemp(target, like, mode, render, sync, sweep)
	if err != nil {
		return "", err
	}
	return finishTemp(f, target, sync)
}

// renderTemp is writeTempLike up to the render: it returns the temp file
// open, its bytes written but not fsynced (when sync, they are being
// written out as they come: writeBehind). On error nothing is left behind.
func renderTemp(target string, like os.FileInfo, mode os.FileMode, render func(w io.Writer) error, sync, sweep bool) (f *os.File, err error) {
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
		// from the folder itself: listed and removed through one
		// descriptor (the write makes its temp there by name)
		removeStaleTemps(filepath.Dir(target), target)
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	if serr != nil {
		owner, _ = os.Stat(dir)
	}
	f, err = os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		if cw := createError(target, filepath.Clean(dir), err); cw != nil {
			return nil, cw
		}
		return nil, wrapIOError(fmt.Sprintf("create temp file for %s", target), err)
	}
	if err = fill(f, target, owner, mode, render, sync); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// fill gives the new file f (to be target) the owner of owner and mode,
// and writes render's output into it.
func fill(f *os.File, target string, owner os.FileInfo, mode os.FileMode, render func(w io.Writer) error, sync bool) error {
	if err := keepOwner(f, owner); err != nil {
		return fmt.Errorf("chown %s: %w", f.Name(), err)
	}
	if err := f.Chmod(mode.Perm()); err != nil {
		return fmt.Errorf("chmod %s: %w", f.Name(), err)
	}
	out2 := renderOut{f: f}
	if sync {
		out2.wb = newWriteBack(f)
		defer out2.wb.stop()
		out2.d = newDirectWrites(f, out2.wb)
		bw := newBlockWriter(out2.d)
		defer bw.release()
		out2.seqWriter = bw
	} else {
		bw := writers.Get().(*bufio.Writer)
		bw.Reset(f)
		defer func() {
			bw.Reset(nil) // holds no file
			writers.Put(bw)
		}()
		out2.seqWriter = bw
	}
	if err := render(out2); err != nil {
		if out2.d != nil {
			_ = out2.d.stop() // the file is removed: no byte of it is kept
		}
		return wrapIOError(fmt.Sprintf("write %s", target), err)
	}
	if err := out2.Flush(); err != nil {
		return wrapIOError(fmt.Sprintf("write %s", target), err)
	}
	if out2.d != nil {
		// the pieces kept for direct writes (the last page) written
		if err := out2.d.finish(); err != nil {
			return wrapIOError(fmt.Sprintf("write %s", target), err)
		}
	}
	return nil
}

// renderOut is the writer a render writes a file through: Write goes
// through a buffer; WriteAt (io.WriterAt) writes at a place of the file
// at once, and may be called from several goroutines at a time, for a
// render that makes its output in blocks on every core and writes each
// block from the core that made it (a plain clone: no one goroutine
// then writes the whole file after the others). A render uses one or the
// other: WriteAt refuses when Write has left bytes in the buffer. A file
// that will be fsynced has its whole pages sent straight to the disk
// either way (directWrites; Write's gathered into page-aligned blocks,
// blockWriter), and what goes through the cache handed to the disk's
// queue as it is written (writeBack).
type renderOut struct {
	seqWriter
	f  *os.File
	wb *writeBack    // a file that will be fsynced, else nil
	d  *directWrites // a file that will be fsynced: its whole pages straight to the disk
}

// seqWriter is the writer of a render's Write: a file that will be
// fsynced is written in page-aligned blocks (blockWriter), any other
// through a buffer (bufio.Writer).
type seqWriter interface {
	io.Writer
	Buffered() int
	Flush() error
}

// errMixedWrites: a render called WriteAt after Write.
var errMixedWrites = errors.New("positional write after buffered writes")

func (o renderOut) WriteAt(p []byte, off int64) (int, error) {
	if o.Buffered() > 0 {
		return 0, errMixedWrites
	}
	if o.d != nil {
		return o.d.writeAt(p, off)
	}
	n, err := o.f.WriteAt(p, off)
	if o.wb != nil && n > 0 {
		o.wb.add(off, int64(n))
	}
	return n, err
}

// renderNew creates the file path, which must not exist (O_EXCL: nor
// appear meanwhile, nor be a link), owned as its folder, mode DefaultMode,
// and writes render's output into it; it returns the file open, not
// fsynced. On error what it made is removed.
func renderNew(dirf *os.File, path string, render func(w io.Writer) error) (*os.File, error) {
	f, err := createIn(dirf, path, DefaultMode)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, existsError(path)
		}
		return nil, wrapIOError(fmt.Sprintf("create %s", path), err)
	}
	var owner os.FileInfo
	if dirf != nil {
		owner, _ = dirf.Stat()
	} else {
		owner, _ = os.Stat(filepath.Dir(path))
	}
	if err := fill(f, path, owner, DefaultMode, render, true); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return f, nil
}

// finishTemp fsyncs (when sync) and closes the temp file f that
// renderTemp (or renderTempBeneath, root not "") wrote, and returns its
// path; on error it is removed (from root down, when given).
func finishTemp(f *os.File, target string, sync bool, root ...string) (string, error) {
	name := f.Name()
	remove := func() { os.Remove(name) }
	if len(root) > 0 && root[0] != "" {
		remove = func() { removeBeneath(root[0], name) }
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			remove()
			return "", wrapIOError(fmt.Sprintf("fsync %s", target), err)
		}
		hook("temp-fsynced:" + target)
	}
	if err := f.Close(); err != nil {
		remove()
		return "", wrapIOError(fmt.Sprintf("close %s", target), err)
	}
	return name, nil
}

// renderTempBeneath is renderTemp for a target below root: the temp file
// is made beside target (O_CREAT|O_EXCL|O_NOFOLLOW) in its folder
// reached from root without following a link (openBeneath), so that a
// folder swapped for a link after the checks leads no byte out of root.
// It takes the owner and mode of like (nil: mode, else DefaultMode, owned
// as its folder), and returns the file open, its bytes written (being
// written out as they come) but not fsynced. On error nothing is left.
func renderTempBeneath(root, target string, like os.FileInfo, mode os.FileMode, render func(io.Writer) error) (*os.File, error) {
	removeStaleTemps(root, target)
	return newTempBeneath(root, target, like, mode, render)
}

// newTempBeneath is renderTempBeneath without the sweep for killed runs'
// temps, for a target named for this run (a move's temp, a new backup's
// manifest): no earlier run's temp can be named for it, and a sweep read
// the whole folder once a file (a move of 859 files: 859 reads of 859
// names).
func newTempBeneath(root, target string, like os.FileInfo, mode os.FileMode, render func(io.Writer) error) (*os.File, error) {
	tmp := filepath.Join(filepath.Dir(target), tempPrefix(filepath.Base(target))+newTxnID())
	return createBeneath(root, tmp, target, like, mode, render)
}

// createBeneath makes the new file name (O_CREAT|O_EXCL|O_NOFOLLOW, in its
// folder reached from root without following a link) to be target, as
// newTempBeneath its temp: returned open, written, not fsynced; on error
// nothing is left.
func createBeneath(root, name, target string, like os.FileInfo, mode os.FileMode, render func(io.Writer) error) (*os.File, error) {
	owner := like
	if owner == nil {
		owner, _ = os.Stat(filepath.Dir(target))
	} else {
		mode = like.Mode().Perm()
	}
	if mode == 0 {
		mode = DefaultMode
	}
	f, err := openBeneath(root, name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return nil, wrapIOError(fmt.Sprintf("create temp file for %s", target), err)
	}
	if err := fill(f, target, owner, mode, render, true); err != nil {
		f.Close()
		removeBeneath(root, name)
		return nil, err
	}
	return f, nil
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
	var na *NotAFileError // names its file already
	var se *SymlinkError  // a read's: names its link, and what is written is not it
	if errors.As(err, &e) || errors.As(err, &na) || errors.As(err, &se) && se.Read {
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
	hook("dir-synced:" + dir)
	d, err := openDirToSync(dir)
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
// were killed (their process is gone), listing and removing them in
// target's folder reached from root without following a link
// (sweepBeneath). Errors are ignored.
func removeStaleTemps(root, target string) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	dir = filepath.Clean(dir)
	hook("stale-temps:" + dir)
	prefix := "." + base + tmpMarker
	ours := func(name string) bool { return strings.HasPrefix(name, prefix) }
	sweepBeneath(root, dir, ours, func(name string, mtime time.Time) bool { return tempOwnerGone(name, mtime) })
}

// keepOwner gives f the owner of like (nil: nothing to do) when they
// differ; only root can, and only root needs to (a user's files are
// already theirs).
func keepOwner(f *os.File, like os.FileInfo) error {
	return chownLike(f, like)
}

// chownIDs gives the open file f the owner uid:gid, as root (a file put
// back by restore is its user's again); a user, whose file is theirs
// already, gives back its group when they are in it (as keepGroup).
func chownIDs(f *os.File, uid, gid int) error {
	if os.Geteuid() == 0 {
		return f.Chown(uid, gid)
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if _, g, ok := fileOwner(fi); !ok || g == gid {
		return nil
	}
	if err := f.Chown(-1, gid); err != nil && !errors.Is(err, syscall.EPERM) {
		return err
	}
	return nil
}

// isTempName reports whether a file name is one of our temp files.
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tmpMarker)
}
