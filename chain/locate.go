package chain

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// DefaultConfigDir returns $CLAUDE_CONFIG_DIR, else ~/.claude.
// On Windows ~ is %USERPROFILE% (ConfigDirFor has each OS's rule).
func DefaultConfigDir() string {
	return ConfigDirFor(HostOS, os.Getenv)
}

// ProjectsDir is <config-dir>/projects.
func ProjectsDir(configDir string) string { return filepath.Join(configDir, "projects") }

// CheckConfigDir says what is wrong when configDir cannot hold sessions:
// it does not exist, or it has no projects/ folder (--config-dir / or a
// mistyped folder); nil when it can. Every look-up of sessions by id, by
// project or of them all asks it before saying that none matches.
func CheckConfigDir(configDir string) error {
	if st, err := os.Stat(configDir); err != nil || !st.IsDir() {
		return &ConfigDirError{Dir: configDir, Missing: true}
	}
	if st, err := os.Stat(ProjectsDir(configDir)); err != nil || !st.IsDir() {
		return &ConfigDirError{Dir: configDir}
	}
	return nil
}

// Locate turns a SESSION argument into the path of a main transcript: a
// full session id, a unique id prefix of 4+ characters, or a path to a
// .jsonl file. Ids are looked up in every folder under
// <config-dir>/projects/. A symlink named explicitly is resolved to the
// file it names.
//
// This is where what counts as a session is decided, once for every
// command: a regular file (never a FIFO, device or folder) holding at least
// one line that is a session entry (see IsSessionFile), whatever its name.
func Locate(configDir, arg string) (string, error) {
	p, err := locate(configDir, arg)
	if err != nil {
		return "", err
	}
	if err := IsSessionFile(p); err != nil {
		return "", err
	}
	return p, nil
}

func locate(configDir, arg string) (string, error) {
	if strings.TrimSpace(arg) == "" {
		// an unset variable or a stray quote in a script, not an id
		msg := "the session argument is empty"
		if arg != "" {
			msg = fmt.Sprintf("the session argument %q is blank", arg)
		}
		return "", &ArgError{Arg: arg, Msg: msg, Hint: "give a session id, an id prefix, or a path to a .jsonl file"}
	}
	if looksLikePath(arg) {
		return locatePath(arg)
	}
	if len(arg) < 4 {
		return "", &ArgError{Arg: arg, Msg: fmt.Sprintf("session id prefix %q is too short", arg), Hint: "give at least 4 characters of the id"}
	}
	for _, r := range arg {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_') {
			return "", &ArgError{Arg: arg, Msg: fmt.Sprintf("%q is not a session id", arg), Hint: "a session id holds letters, digits and dashes; give a path to use a file"}
		}
	}
	if p, ok := sessionByID(configDir, arg); ok {
		return p, nil
	}
	cands, err := FindSessions(configDir, arg)
	if err != nil {
		return "", err
	}
	var exact []string
	for _, c := range cands {
		if SameName(HostOS, strings.TrimSuffix(filepath.Base(c), ".jsonl"), arg) {
			exact = append(exact, c)
		}
	}
	if len(exact) == 1 {
		return exact[0], nil
	}
	if len(exact) > 1 {
		cands = exact
	}
	switch len(cands) {
	case 0:
		if err := CheckConfigDir(configDir); err != nil {
			return "", err
		}
		return "", &NoMatchError{Arg: arg, ProjectsDir: ProjectsDir(configDir)}
	case 1:
		return cands[0], nil
	}
	return "", &AmbiguousError{Arg: arg, Candidates: cands}
}

// sessionByID is the one file of the project folders of configDir named
// <id>.jsonl, for a full session id, found without listing the folders'
// names (a batch of n ids in a folder of n sessions read n² names): what
// FindSessions would find as the one exact match. ok is false when there
// is none or several (the listing then says why, or that it is
// ambiguous), and where the file system folds case (the listing gives the
// name as stored).
func sessionByID(configDir, id string) (string, bool) {
	if !IsUUID(id) || FoldsCase(HostOS) {
		return "", false
	}
	root := ProjectsDir(configDir)
	projects, err := os.ReadDir(root)
	if err != nil {
		return "", false
	}
	found := ""
	for _, d := range projects {
		if !d.IsDir() {
			continue
		}
		p := filepath.Join(root, d.Name(), id+".jsonl")
		st, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if !st.Mode().IsRegular() {
			return "", false // a link, a FIFO, a folder: the listing's rules say what it is
		}
		if found != "" {
			return "", false
		}
		found = p
	}
	return found, found != ""
}

// NamesAFile says whether SESSION argument arg names a file by its path
// (which the user chose) rather than an id or a prefix (whose file the
// listing of the config dir found).
func NamesAFile(arg string) bool { return looksLikePath(arg) }

func looksLikePath(arg string) bool {
	if strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, os.PathSeparator) || strings.HasSuffix(arg, ".jsonl") || strings.Contains(arg, "..") || arg == "." {
		return true
	}
	_, err := os.Lstat(arg)
	return err == nil
}

// notRegularHint is the hint of a SESSION that is not a regular file.
const notRegularHint = "a session is a regular .jsonl file (a FIFO, socket or device is never read): give its path or its session id"

func locatePath(arg string) (string, error) {
	st, err := os.Stat(arg)
	if err != nil {
		if os.IsNotExist(err) {
			return "", &Error{Msg: fmt.Sprintf("no such file: %s", arg), Hint: "give a session id, an id prefix, or the path of an existing .jsonl file"}
		}
		return "", &Error{Msg: fmt.Sprintf("cannot read %s: %v", arg, unwrapPathErr(err))}
	}
	if st.IsDir() {
		return "", &Error{Msg: fmt.Sprintf("%s is a directory, not a session file", arg), Hint: "give a session id or the path of a .jsonl file"}
	}
	if !st.Mode().IsRegular() {
		return "", &Error{Msg: fmt.Sprintf("%s is not a regular file", arg), Hint: notRegularHint}
	}
	real, err := filepath.EvalSymlinks(arg)
	if err != nil {
		return "", &Error{Msg: fmt.Sprintf("cannot resolve %s: %v", arg, unwrapPathErr(err))}
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	// as every transcript is opened: a name swapped for a pipe since the
	// stat above is refused at once (openShared), not waited on
	fh, err := openShared(real)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return "", e
		}
		return "", &Error{Msg: fmt.Sprintf("cannot read %s: %v", arg, unwrapPathErr(err))}
	}
	fh.Close()
	return real, nil
}

// sessionKeys are the top-level fields of which a session entry has one
// (besides its "type"): chain entries have a uuid, metadata entries a
// sessionId, leafUuid (summary) or messageId (file-history).
var sessionKeys = []string{"type", "sessionId", "uuid", "leafUuid", "messageId"}

// maxProbeLine is how much of one line IsSessionFile looks at: enough for
// the envelope fields, which the client writes before the content.
const maxProbeLine = 1 << 20

// maxProbe is how far into a file IsSessionFile looks for a session line:
// the client's first lines are small (a queue-operation, a snapshot, a
// summary), and the API takes no message near this size, so a file with
// none in its first 64 MB (a disk image or a core dump named *.jsonl) is
// not a session, and is not read to its end to say so.
const maxProbe = 64 << 20

// IsSessionFile returns nil when path is a regular file with at least one
// line that is a session entry: a JSON object with a string "type" and a
// string "sessionId", "uuid", "leafUuid" or "messageId". Otherwise an
// *Error says why it is not a session. It reads lines until the first
// session entry (the first line, in a file the client wrote), no further
// than maxProbe bytes, and never blocks on a FIFO.
func IsSessionFile(path string) error {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return &Error{Msg: fmt.Sprintf("cannot read %s: %v", path, unwrapPathErr(err))}
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return &Error{Msg: fmt.Sprintf("cannot read %s: %v", path, unwrapPathErr(err))}
	}
	if !st.Mode().IsRegular() {
		return &Error{Msg: fmt.Sprintf("%s is not a regular file", path), Hint: notRegularHint}
	}
	r := bufio.NewReaderSize(io.LimitReader(fh, maxProbe), 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxProbeLine {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if isSessionLine(line) {
			return nil
		}
		line = line[:0]
		if err == io.EOF {
			break
		}
		if err != nil {
			return &Error{Msg: fmt.Sprintf("cannot read %s: %v", path, unwrapPathErr(err))}
		}
	}
	return &Error{Msg: fmt.Sprintf("%s is not a Claude Code session: no line in it is a session entry", path),
		Hint: "a session is a JSONL transcript Claude Code writes under the projects folder of its config dir"}
}

func isSessionLine(line []byte) bool {
	line = bytes.TrimLeft(line, "\xef\xbb\xbf \t")
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	v := gjson.GetManyBytes(line, sessionKeys...)
	if v[0].Type != gjson.String {
		return false
	}
	for _, k := range v[1:] {
		if k.Type == gjson.String && k.Str != "" {
			return true
		}
	}
	return false
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// FindSessions returns the main transcripts under <config-dir>/projects/*
// whose session id starts with prefix, sorted by path.
func FindSessions(configDir, prefix string) ([]string, error) {
	root := ProjectsDir(configDir)
	projects, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, &Error{Msg: fmt.Sprintf("cannot read %s: %v", root, unwrapPathErr(err))}
	}
	var out []string
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		dir := filepath.Join(root, p.Name())
		folderListings.Add(1)
		files, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			n := f.Name()
			if f.IsDir() || !strings.HasSuffix(n, ".jsonl") || strings.HasPrefix(n, "agent-") || strings.HasPrefix(n, ".") || !HasPrefixFor(HostOS, n, prefix) {
				continue
			}
			p := filepath.Join(dir, n)
			if !IsRegular(f, p) {
				continue // a FIFO would block whoever opens it
			}
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ListSessions lists the sessions of every project folder of the config
// dir, sorted by path: SessionsIn of each folder under
// <config-dir>/projects. It is what ls, --all, --project, --pick, the
// default session, move and completion list. A SESSION named by its id
// still finds a file that is not one (FindSessions), to say why.
func ListSessions(configDir string) ([]string, error) {
	root := ProjectsDir(configDir)
	projects, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, &Error{Msg: fmt.Sprintf("cannot read %s: %v", root, unwrapPathErr(err))}
	}
	var out []string
	for _, p := range projects {
		if p.IsDir() { // never a link to a folder elsewhere
			out = append(out, SessionsIn(filepath.Join(root, p.Name()))...)
		}
	}
	sort.Strings(out)
	return out, nil
}

// SessionsIn is the one enumeration of the sessions of a project folder,
// sorted by path: the files named like a session's main transcript
// (<name>.jsonl, not agent-*.jsonl, not hidden) that are regular files
// themselves — never a symlink (it may lead out of the config dir, and a
// batch would write wherever it points), a FIFO (opening it blocks), a
// device or a folder — and hold a session entry (IsSessionFile). Nothing
// here opens what is not a regular file.
func SessionsIn(dir string) []string {
	var out []string
	for _, f := range NamedLikeSessions(dir) {
		if !f.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, f.Name())
		if IsSessionFile(p) == nil {
			out = append(out, p)
		}
	}
	return out
}

// NamedLikeSessions lists the entries of dir named like a session's main
// transcript (<name>.jsonl, not agent-*.jsonl, not hidden), whatever they
// are (a regular file, a symlink, a FIFO, a folder), sorted by name; it
// opens none. SessionsIn keeps the sessions among them; doctor names the
// rest.
func NamedLikeSessions(dir string) []os.DirEntry {
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []os.DirEntry
	for _, f := range files {
		if n := f.Name(); strings.HasSuffix(n, ".jsonl") && !strings.HasPrefix(n, "agent-") && !strings.HasPrefix(n, ".") {
			out = append(out, f)
		}
	}
	return out
}

// IsRegular reports whether the directory entry d (at path p) is a regular
// file, or a symlink to one; it never opens the file.
func IsRegular(d os.DirEntry, p string) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&os.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// ProjectSlug is the folder name the client uses for a working directory:
// every UTF-16 code unit other than an ASCII letter or digit becomes '-'
// (a character outside the BMP, two units, becomes "--": the client's
// regexp has no u flag); a name longer than 200 characters is cut to 200
// and followed by '-' and a hash of the path, as Claude Code 2.1.x does
// (2.0.x does not cut it). TestProjectSlugIsTheClients has the client's
// code.
func ProjectSlug(cwd string) string {
	const maxLen = 200
	var b strings.Builder
	var h int32 // Java's String.hashCode of the UTF-16 units, as the client's
	for _, c := range cwd {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
		if r1, r2 := utf16.EncodeRune(c); r1 != utf8.RuneError {
			b.WriteByte('-')
			h = 31*h + r1
			h = 31*h + r2
		} else {
			h = 31*h + c
		}
	}
	if b.Len() <= maxLen {
		return b.String()
	}
	return b.String()[:maxLen] + "-" + strconv.FormatInt(abs(int64(h)), 36)
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// folderListings counts the project folders FindSessions read (tests).
var folderListings atomic.Int64
