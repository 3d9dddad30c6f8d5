package redact

// What only the tests call.

// match is matchInto with a new result.
func (m *fastMatcher) match(text string) []int { return m.matchInto(nil, text) }

// splitWords splits an identifier into lower-case words (appendWords).
func splitWords(id string) []string { return appendWords(nil, id) }

// findAnchors is the prefilter's hits of text (appendAnchors).
func (s *Scanner) findAnchors(text string) []hit { return s.appendAnchors(nil, text, false) }
