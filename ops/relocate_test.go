package ops

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStructuralPathsRewritesWholePathsOutsideContent(t *testing.T) {
	from, to := jsonText("/home/u/app"), jsonText("/home/u/new app")
	for _, tc := range []struct{ in, want string }{
		{`{"cwd":"/home/u/app","x":1}`, `{"cwd":"/home/u/new app","x":1}`},
		{`{"cwd":"/home/u/app/sub"}`, `{"cwd":"/home/u/new app/sub"}`},
		{`{"cwd":"/home/u/app2"}`, `{"cwd":"/home/u/app2"}`},   // another folder
		{`{"cwd":"/x/home/u/app"}`, `{"cwd":"/x/home/u/app"}`}, // not a path under from
		{`{"snapshot":{"a":{"realParentDir":"/home/u/app"}}}`, `{"snapshot":{"a":{"realParentDir":"/home/u/new app"}}}`},
		{`{"message":{"content":"cd /home/u/app"},"cwd":"/home/u/app"}`, `{"message":{"content":"cd /home/u/app"},"cwd":"/home/u/new app"}`},
		{`{"type":"relocated","relocatedCwd":"/home/u/app"}`, `{"type":"relocated","relocatedCwd":"/home/u/new app"}`},
	} {
		got, _ := structuralPaths([]byte(tc.in), from, to)
		assert.Equal(t, tc.want, string(got), tc.in)
	}
}

func TestReplacePathKeepsOtherNames(t *testing.T) {
	from, to := jsonText("/home/u/app"), jsonText("/srv/app")
	for _, tc := range []struct{ in, want string }{
		{`"cat /home/u/app/a.go"`, `"cat /srv/app/a.go"`},
		{`"ls /home/u/app"`, `"ls /srv/app"`},
		{`"ls /home/u/app2 /home/u/app.txt"`, `"ls /home/u/app2 /home/u/app.txt"`},
		{`"/y/home/u/app/x"`, `"/y/home/u/app/x"`},
		{`"a\n/home/u/app:1"`, `"a\n/srv/app:1"`},
	} {
		got, _ := replacePath([]byte(tc.in), from, to)
		assert.Equal(t, tc.want, string(got), tc.in)
	}
}
