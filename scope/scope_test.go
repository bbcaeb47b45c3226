package scope

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

func TestNormalizeNil(t *testing.T) {
	got, err := Normalize(nil)
	if got != nil || err != nil {
		t.Fatalf("Normalize(nil) = %v, %v; want nil, nil", got, err)
	}
}

func TestNormalizeAccepts(t *testing.T) {
	in := &protocol.Scope{
		Projects:           []string{"kunora-kgent", "kunora-ops", "kunora-kgent"},
		Paths:              []string{"publish/system/components/kunora-kgent/", "publish/ops", "publish/system/components/kunora-kgent"},
		Version:            "v1.0",
		IncludeWorkingDocs: true,
	}
	want := &protocol.Scope{
		Projects:           []string{"kunora-kgent", "kunora-ops"},
		Paths:              []string{"publish/system/components/kunora-kgent", "publish/ops"},
		Version:            "v1.0",
		IncludeWorkingDocs: true,
	}
	got, err := Normalize(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalize = %+v, want %+v", got, want)
	}
	// The input is left alone: callers may still log what was asked.
	if len(in.Projects) != 3 || in.Paths[0] != "publish/system/components/kunora-kgent/" {
		t.Errorf("Normalize modified its input: %+v", in)
	}
}

func TestNormalizeKeepsEmptyFields(t *testing.T) {
	got, err := Normalize(&protocol.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, &protocol.Scope{}) {
		t.Errorf("Normalize(empty) = %+v, want an empty scope", got)
	}
}

func TestNormalizeRejects(t *testing.T) {
	tooMany := func() []string {
		out := make([]string, protocol.MaxScopeEntries+1)
		for i := range out {
			out[i] = fmt.Sprintf("p%d", i)
		}
		return out
	}
	tests := []struct {
		name  string
		in    protocol.Scope
		field string
	}{
		{"uppercase project", protocol.Scope{Projects: []string{"ok", "Kunora"}}, "scope.projects[1]"},
		{"empty project", protocol.Scope{Projects: []string{""}}, "scope.projects[0]"},
		{"project with space", protocol.Scope{Projects: []string{"a b"}}, "scope.projects[0]"},
		{"project with quote", protocol.Scope{Projects: []string{`a"`}}, "scope.projects[0]"},
		{"project starting with dash", protocol.Scope{Projects: []string{"-a"}}, "scope.projects[0]"},
		{"project too long", protocol.Scope{Projects: []string{strings.Repeat("a", 129)}}, "scope.projects[0]"},
		{"too many projects", protocol.Scope{Projects: tooMany()}, "scope.projects"},
		{"uppercase version", protocol.Scope{Version: "Main"}, "scope.version"},
		{"version with slash", protocol.Scope{Version: "main/x"}, "scope.version"},
		{"version starting with dot", protocol.Scope{Version: ".main"}, "scope.version"},
		{"bad path", protocol.Scope{Paths: []string{"ok", "a/../b"}}, "scope.paths[1]"},
		{"too many paths", protocol.Scope{Paths: tooMany()}, "scope.paths"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(&tt.in)
			if err == nil {
				t.Fatalf("Normalize = %+v, want an error", got)
			}
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			if !strings.HasPrefix(pe.Message, tt.field+": ") {
				t.Errorf("message %q does not start with %q", pe.Message, tt.field+": ")
			}
		})
	}
}

func TestNormalizeAllowsMaxEntries(t *testing.T) {
	paths := make([]string, protocol.MaxScopeEntries)
	for i := range paths {
		paths[i] = fmt.Sprintf("p/%d", i)
	}
	got, err := Normalize(&protocol.Scope{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Paths) != protocol.MaxScopeEntries {
		t.Errorf("got %d paths, want %d", len(got.Paths), protocol.MaxScopeEntries)
	}
}

func TestContains(t *testing.T) {
	eff := protocol.Scope{
		Projects: []string{"kunora-kgent"},
		Paths:    []string{"publish/system/components/kunora-kgent"},
		Version:  "main",
	}
	withWorking := eff
	withWorking.IncludeWorkingDocs = true
	good := Doc{Project: "kunora-kgent", Version: "main", Status: "approved", Path: "publish/system/components/kunora-kgent/index.md"}
	with := func(change func(*Doc)) Doc { d := good; change(&d); return d }

	tests := []struct {
		name string
		s    protocol.Scope
		d    Doc
		want bool
	}{
		{"in scope", eff, good, true},
		{"scope root itself", eff, with(func(d *Doc) { d.Path = "publish/system/components/kunora-kgent" }), true},
		{"other project", eff, with(func(d *Doc) { d.Project = "kunora-gateway" }), false},
		{"project case variant", eff, with(func(d *Doc) { d.Project = "Kunora-Kgent" }), false},
		{"other version", eff, with(func(d *Doc) { d.Version = "v1.0" }), false},
		{"version case variant", eff, with(func(d *Doc) { d.Version = "MAIN" }), false},
		{"extras prefix trap", eff, with(func(d *Doc) { d.Path = "publish/system/components/kunora-kgent-extras/index.md" }), false},
		{"path case variant", eff, with(func(d *Doc) { d.Path = "publish/system/components/Kunora-Kgent/index.md" }), false},
		{"parent path", eff, with(func(d *Doc) { d.Path = "publish/system/components" }), false},
		{"working without flag", eff, with(func(d *Doc) { d.Status = "working" }), false},
		{"working with flag", withWorking, with(func(d *Doc) { d.Status = "working" }), true},
		{"unknown status", withWorking, with(func(d *Doc) { d.Status = "draft" }), false},
		{"status case variant", eff, with(func(d *Doc) { d.Status = "Approved" }), false},
		{"empty status", eff, with(func(d *Doc) { d.Status = "" }), false},
		{"empty project", eff, with(func(d *Doc) { d.Project = "" }), false},
		{"empty version", eff, with(func(d *Doc) { d.Version = "" }), false},
		{"empty path", eff, with(func(d *Doc) { d.Path = "" }), false},
		{"scope without paths", protocol.Scope{Projects: eff.Projects, Version: "main"}, good, false},
		{"scope without projects", protocol.Scope{Paths: eff.Paths, Version: "main"}, good, false},
		{"scope without version", protocol.Scope{Projects: eff.Projects, Paths: eff.Paths}, with(func(d *Doc) { d.Version = "" }), false},
		{"empty scope", protocol.Scope{}, Doc{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Contains(tt.s, tt.d); got != tt.want {
				t.Errorf("Contains = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestContainsProjectPaths is the review's leak: kunora-kgent granted only
// on its guides, kunora-gateway on the components directory that also holds
// kunora-kgent's pages. The flat lists cover a kunora-kgent page anywhere
// under components; the pairing does not.
func TestContainsProjectPaths(t *testing.T) {
	const (
		components = "publish/system/components"
		guides     = "publish/system/components/kunora-kgent/guides"
	)
	flat := protocol.Scope{
		Projects: []string{"kunora-gateway", "kunora-kgent"},
		Paths:    []string{components, guides},
		Version:  "main",
	}
	paired := flat
	paired.ProjectPaths = map[string][]string{"kunora-gateway": {components}, "kunora-kgent": {guides}}
	doc := func(project, path string) Doc {
		return Doc{Project: project, Version: "main", Status: "approved", Path: path}
	}
	secret := doc("kunora-kgent", "publish/system/components/kunora-kgent/internal/secret.md")

	tests := []struct {
		name string
		s    protocol.Scope
		d    Doc
		want bool
	}{
		{"flat scope lets the leak through", flat, secret, true},
		{"paired scope drops the leak", paired, secret, false},
		{"own granted path", paired, doc("kunora-kgent", guides+"/memory.md"), true},
		{"other project on its wide path", paired, doc("kunora-gateway", "publish/system/components/kunora-gateway/routes.md"), true},
		{"wide project may hold the narrow path", paired, doc("kunora-gateway", guides+"/x.md"), true},
		{"project without an entry", protocol.Scope{Projects: flat.Projects, Paths: flat.Paths, Version: "main",
			ProjectPaths: map[string][]string{"kunora-gateway": {components}}}, doc("kunora-kgent", guides+"/memory.md"), false},
		{"empty map pairs nothing", protocol.Scope{Projects: flat.Projects, Paths: flat.Paths, Version: "main",
			ProjectPaths: map[string][]string{}}, doc("kunora-gateway", components+"/a.md"), false},
		{"project path outside the flat paths", protocol.Scope{Projects: flat.Projects, Paths: []string{guides}, Version: "main",
			ProjectPaths: map[string][]string{"kunora-gateway": {components}}}, doc("kunora-gateway", components+"/a.md"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Contains(tt.s, tt.d); got != tt.want {
				t.Errorf("Contains = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestContainsDatasets(t *testing.T) {
	eff := protocol.Scope{
		Projects: []string{"kunora-kgent"},
		Paths:    []string{"publish/system/components/kunora-kgent"},
		Version:  "main",
		Datasets: []string{"ds-approved"},
	}
	doc := Doc{Project: "kunora-kgent", Version: "main", Status: "approved", Path: "publish/system/components/kunora-kgent/index.md"}
	withDataset := func(id string) Doc { d := doc; d.DatasetID = id; return d }
	unchecked := eff
	unchecked.Datasets = nil

	tests := []struct {
		name string
		s    protocol.Scope
		d    Doc
		want bool
	}{
		{"decided dataset", eff, withDataset("ds-approved"), true},
		{"other dataset", eff, withDataset("ds-elsewhere"), false},
		{"dataset case variant", eff, withDataset("DS-APPROVED"), false},
		{"no dataset named (search hit)", eff, doc, true},
		{"no decided datasets", protocol.Scope{Projects: eff.Projects, Paths: eff.Paths, Version: "main", Datasets: []string{}}, withDataset("ds-approved"), false},
		{"datasets not checked", unchecked, withDataset("ds-elsewhere"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Contains(tt.s, tt.d); got != tt.want {
				t.Errorf("Contains = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		s    protocol.Scope
		want string
	}{
		{protocol.Scope{Version: "main", Paths: []string{"publish/system/components/kunora-kgent"}}, "main:publish/system/components/kunora-kgent"},
		{protocol.Scope{Version: "v1.0", Paths: []string{"a", "b/c"}, Projects: []string{"x"}}, "v1.0:a,b/c"},
		{protocol.Scope{Version: "main", Paths: []string{"a"}, IncludeWorkingDocs: true}, "main:a+working"},
		{protocol.Scope{}, ":"},
	}
	for _, tt := range tests {
		if got := String(tt.s); got != tt.want {
			t.Errorf("String(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
