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
// numbers the human prompts along it.
package chain
