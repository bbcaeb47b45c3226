package policyreplay

import (
	"slices"
	"testing"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

func allowed(projects []string, datasets ...string) *policies.WireDecision {
	w := &policies.WireDecision{Allow: true, Scope: &protocol.Scope{Projects: projects, Version: "main"}}
	for _, d := range datasets {
		w.Datasets = append(w.Datasets, policies.Dataset{ID: d})
	}
	return w
}

// withPaths is an allow of project a with these scope paths, the same
// paths granted in the project's own path list too.
func withPaths(paths ...string) *policies.WireDecision {
	w := allowed([]string{"a"}, "d1")
	w.Scope.Paths = paths
	w.ProjectPaths = map[string][]string{"a": paths}
	return w
}

func TestFlipKinds(t *testing.T) {
	denied := &policies.WireDecision{Code: "forbidden_tool"}
	cases := []struct {
		name          string
		before, after *policies.WireDecision
		want          string
		added         []string
	}{
		{"same", allowed([]string{"a"}, "d1"), allowed([]string{"a"}, "d1"), "", nil},
		{"allow to deny", allowed([]string{"a"}, "d1"), denied, AllowToDeny, nil},
		{"deny to allow", denied, allowed([]string{"a"}, "d1"), DenyToAllow, nil},
		{"another dataset", allowed([]string{"a"}, "d1"), allowed([]string{"a"}, "d1", "d2"), Widened, []string{"dataset:d2"}},
		{"fewer projects", allowed([]string{"a", "b"}, "d1"), allowed([]string{"a"}, "d1"), Narrowed, nil},
		{"a path moved down the tree", withPaths("publish/a"), withPaths("publish/a/sub"), Narrowed, nil},
		{"a path moved up the tree", withPaths("publish/a/sub"), withPaths("publish/a"), Widened, []string{"path:a:publish/a", "path:publish/a"}},
		{"a sibling path", withPaths("publish/a"), withPaths("publish/ab"), Widened, []string{"path:a:publish/ab", "path:publish/ab"}},
		{"other deny code", denied, &policies.WireDecision{Code: "forbidden_scope"}, CodeChanged, nil},
		{"engine error", allowed([]string{"a"}, "d1"), nil, AllowToDeny, nil},
	}
	for _, c := range cases {
		kind, added, _ := flipKind(outcomeOf(c.before, ""), outcomeOf(c.after, "boom"))
		if kind != c.want || !slices.Equal(added, c.added) {
			t.Errorf("%s: %q added %v, want %q %v", c.name, kind, added, c.want, c.added)
		}
		if Failing(kind) != (c.want == AllowToDeny || c.want == DenyToAllow || c.want == Widened) {
			t.Errorf("%s: Failing(%q) = %v", c.name, kind, Failing(kind))
		}
	}
}
