package doctor

import (
	"context"
	"os"
	"strings"
	"testing"
)

// The shipped default scope passes; a default scope naming a project that
// is not public, or that the catalog has no dataset for (a new install
// whose catalog holds only its own project), fails naming the project.
func TestDefaultScopeProjectsThatDoNotExistFail(t *testing.T) {
	cfg, _ := devBackends(t)
	data, err := os.ReadFile("../rego/data.json") // the shipped policy data
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DefaultScope, err = ParseDefaultScope(data); err != nil || len(cfg.DefaultScope.Projects) == 0 {
		t.Fatalf("default scope: %+v %v", cfg.DefaultScope, err)
	}
	if out := printed(Run(context.Background(), cfg)); strings.Contains(out, "default_scope") {
		t.Fatalf("the shipped default scope was reported:\n%s", out)
	}
	cfg.DefaultScope.Projects = append(cfg.DefaultScope.Projects, "caddy")
	delete(cfg.Catalog.Datasets, "kunora-ops")
	r := Run(context.Background(), cfg)
	out := printed(r)
	for _, want := range []string{
		`FAIL  catalog      humans.default_scope names project "caddy", which is not in humans.public.projects`,
		`FAIL  catalog      humans.default_scope names project "kunora-ops", which has no approved dataset at version "main"`,
	} {
		if !r.Failed() || !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
