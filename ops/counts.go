package ops

// CountKind is one thing an operation counts in its report: Key is the
// snake_case key of `counts` in --json output, Label what the text summary
// prints. CountKinds is the one table of them, in the order the summary
// prints them (README lists it too).
type CountKind struct{ Key, Label string }

// The count keys.
const (
	CountOtherBranches    = "other_branch_entries_removed"
	CountAfterFork        = "entries_after_fork_point_removed"
	CountSecrets          = "secrets_redacted"
	CountSecretsLeft      = "secrets_left_in_place"
	CountRawLinesRedacted = "non_json_lines_redacted"
	CountSidecarsRedacted = "tool_results_files_redacted"
	CountSecretThinking   = "secret_thinking_blocks_removed"
	CountThinking         = "thinking_blocks_removed"
	CountToolCalls        = "tool_calls_removed"
	CountProgress         = "progress_entries_removed"
	CountSubagents        = "subagent_transcripts_removed"
	CountAssistantsJoined = "assistant_messages_joined"
	CountShortened        = "tool_outputs_shortened"
	CountBookkeeping      = "bookkeeping_entries_removed"
	CountSyntheticErrors  = "synthetic_error_entries_removed"
	CountAttachments      = "attachments_removed"
	CountTurnsRemoved     = "turns_removed"
	CountFixes            = "fixes"
	CountPathsRewritten   = "path_fields_rewritten"
)

// CountKinds lists every count, in summary order: the pipeline's order
// (branch, redact, strip, drop, compress), then repair.
var CountKinds = []CountKind{
	{CountOtherBranches, "entries of other branches removed"},
	{CountAfterFork, "entries after the fork point removed"},
	{CountSecrets, "secrets redacted"},
	{CountSecretsLeft, "secrets left in place (line is not JSON, binary or not UTF-8)"},
	{CountRawLinesRedacted, "lines that are not JSON, redacted as text"},
	{CountSidecarsRedacted, "tool-results files redacted"},
	{CountSecretThinking, "thinking blocks removed (held a secret)"},
	{CountThinking, "thinking blocks removed"},
	{CountToolCalls, "tool calls removed"},
	{CountProgress, "progress entries removed"},
	{CountSubagents, "subagent transcripts removed"},
	{CountAssistantsJoined, "assistant messages joined (a removed tool result stood between them)"},
	{CountShortened, "tool results, inputs and images shortened"},
	{CountBookkeeping, "bookkeeping entries removed"},
	{CountSyntheticErrors, "synthetic API error entries removed (failed retries)"},
	{CountAttachments, "old attachments removed (repeated listings, reminders)"},
	{CountTurnsRemoved, "whole turns removed (a note names them, a line each for the last)"},
	{CountFixes, "fixes"},
	{CountPathsRewritten, "path fields rewritten"},
}
