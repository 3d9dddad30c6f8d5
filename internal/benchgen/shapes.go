package gen

import (
	"fmt"
	"sort"
	"sync"
)

// Shape is one kind of generated session. Every shape writes a session of
// about Options.Size bytes into Options.Dir/projects/<Project>/, so the
// benchmark runs every command on every shape the same way. A shape in a
// file of its own registers itself from an init function:
//
//	func init() { RegisterShape(Shape{Name: "mine", Doc: "…", Generate: generateMine}) }
type Shape struct {
	Name     string // as given to gensession -shape and bench/run.sh SHAPE:SIZE
	Doc      string // one line: what the session looks like
	Generate func(o Options) (*Result, error)
	// Damaged: the session has validation errors on purpose (the errors
	// validate must report are the codes listed)
	Damaged []string
}

var (
	shapesMu sync.Mutex
	shapes   = map[string]Shape{}
)

// RegisterShape adds a shape; a name can be registered once.
func RegisterShape(s Shape) {
	shapesMu.Lock()
	defer shapesMu.Unlock()
	if s.Name == "" || s.Generate == nil {
		panic("gen: a shape needs a name and a generator")
	}
	if _, dup := shapes[s.Name]; dup {
		panic(fmt.Sprintf("gen: shape %q registered twice", s.Name))
	}
	shapes[s.Name] = s
}

// Shapes returns every registered shape, by name.
func Shapes() []Shape {
	shapesMu.Lock()
	defer shapesMu.Unlock()
	out := make([]Shape, 0, len(shapes))
	for _, s := range shapes {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupShape returns the shape called name.
func LookupShape(name string) (Shape, bool) {
	shapesMu.Lock()
	defer shapesMu.Unlock()
	s, ok := shapes[name]
	return s, ok
}

// chainEntryBytes is about the size of one entry of GenerateChain: a
// chain shape of Size bytes has Size/chainEntryBytes entries.
const chainEntryBytes = 935

func init() {
	RegisterShape(Shape{Name: "bulk", Generate: Generate,
		Doc: "the real sessions repeated with large tool outputs, long thinking, images, planted secrets and subagents (the first benchmark shape)"})
	RegisterShape(Shape{Name: "dense", Generate: GenerateDense,
		Doc: "the real sessions repeated as they are: many short turns, parallel tool calls, a subagent transcript every few turns"})
	RegisterShape(Shape{Name: "chain", Generate: func(o Options) (*Result, error) {
		return GenerateChain(o, int(max(2, o.Size/chainEntryBytes)))
	}, Doc: "one chain of small entries (~935 bytes each): the worst case for per-entry costs"})
	RegisterShape(Shape{Name: "agentic", Generate: GenerateAgentic,
		Doc: "few prompts, thousands of tool calls each with progress entries and short outputs"})
}

// denseWeights favours the templates with parallel calls and subagents.
var denseWeights = map[string]int{"tools": 2, "multi-turn": 2, "parallel-tools": 4, "subagent": 3, "secrets": 1, "thinking-tool-loop": 2}

// GenerateDense writes the template conversations repeated without bulk:
// the shape of a long real session of short turns, where per-entry and
// per-file costs (ids, subagent transcripts) weigh more than bytes.
func GenerateDense(o Options) (*Result, error) {
	o.NoBulk = true
	if o.Weights == nil {
		o.Weights = denseWeights
	}
	return Generate(o)
}
