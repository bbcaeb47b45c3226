package gateway

import (
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

func TestWithin(t *testing.T) {
	session := protocol.Scope{Projects: []string{"a"}, Paths: []string{"publish/a"}, Version: "main"}
	cases := []struct {
		name  string
		inner protocol.Scope
		want  bool
	}{
		{"same", session, true},
		{"narrower path", protocol.Scope{Projects: []string{"a"}, Paths: []string{"publish/a/x"}, Version: "main"}, true},
		{"prefix trap", protocol.Scope{Projects: []string{"a"}, Paths: []string{"publish/a-extras"}, Version: "main"}, false},
		{"other project", protocol.Scope{Projects: []string{"b"}, Paths: []string{"publish/a"}, Version: "main"}, false},
		{"other version", protocol.Scope{Projects: []string{"a"}, Paths: []string{"publish/a"}, Version: "v1.0"}, false},
		{"working docs", protocol.Scope{Projects: []string{"a"}, Paths: []string{"publish/a"}, Version: "main", IncludeWorkingDocs: true}, false},
	}
	for _, tc := range cases {
		if got := within(tc.inner, session); got != tc.want {
			t.Errorf("%s: within = %v, want %v", tc.name, got, tc.want)
		}
	}
}
