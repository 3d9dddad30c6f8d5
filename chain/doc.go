// Package chain reads Claude Code session transcripts losslessly and builds
// the chain graph the real client rebuilds on --resume.
//
// A session file is a sequence of lines. Every line is kept by position:
// the loader records where it sits in the file, its line terminator and a
// small parsed envelope (type, uuid, parentUuid, message id, content block
// kinds, tool ids, ...). The bytes of a line are read again from the file
// only when an operation has to look inside it, and a line no operation
// touches is copied back byte-for-byte by Write. Lines that are not JSON
// objects are kept verbatim and reported, never dropped.
//
// On top of the entries, Graph gives nodes by uuid, parent edges
// (parentUuid, and logicalParentUuid across compact boundaries), roots,
// leaves, children, sidechains and the metadata entries attached to the
// entries they reference. ActivePath is the conversation the client resumes,
// including the sibling tool_result entries of parallel tool calls, and Turns
// numbers the human prompts along it. Messages rebuilds what the client
// sends from that path, and ResumeTokens estimates its size in tokens
// (info, compress-old-turns' target and the tests all read it from there).
//
// chain also owns what a session is and where the client keeps it: Locate
// turns a SESSION argument (an id, an id prefix, a path) into a file, and
// decides alone what counts as a session file; SessionsIn is the one
// listing of a project folder's sessions (never opening a FIFO, a device
// or a symlink); naming.go is the client's config dir and project-folder
// naming on each OS; IsUUID the one id check.
//
// chain reads; it writes no file (File.Write renders into a writer, and
// package backup writes). Its errors are facts: a failure to read or find
// a session is an *Error (a message, and a hint that names no flag or
// command), a SESSION argument that cannot name one an *ArgError, an id
// prefix matching several an *AmbiguousError with the candidates, no
// match a *NoMatchError, a config dir without projects a *ConfigDirError.
// The command layer (internal/cli) words them and chooses the exit code.
package chain
