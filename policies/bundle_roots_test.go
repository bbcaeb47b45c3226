package policies_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
)

// withRoots sets the manifest roots of an (unsigned) bundle tarball.
func withRoots(t *testing.T, tarball []byte, roots ...string) []byte {
	return tamper(t, tarball, ".manifest", func(s string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		m["roots"] = roots
		out, _ := json.Marshal(m)
		return string(out)
	})
}

// dataRoots are the top-level keys of the shipped data.json.
func dataRoots(t *testing.T) []string {
	raw, err := os.ReadFile(filepath.Join(defaultPolicyDir, "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestBundleRootsEnforced: a bundle may only carry policy and data inside
// the roots its manifest claims (OPA's bundle reader checks it). One that
// carries a package or data outside them, or claims overlapping roots, is
// refused with OPA's message naming the roots and what lies outside, at
// start-up and on reload (the serving bundle stays).
func TestBundleRootsEnforced(t *testing.T) {
	t.Parallel()
	built := buildBundle(t, defaultPolicyDir, policies.BuildOptions{Revision: "roots-1"})
	covering := append([]string{"wikigate"}, dataRoots(t)...)
	cases := []struct {
		name  string
		roots []string
		want  string // "" loads
	}{
		{"covering", covering, ""},
		{"policy root only", []string{"wikigate"}, "do not permit data at path '/"},
		{"data roots only", dataRoots(t), "do not permit 'package wikigate' in module"},
		{"overlapping", append([]string{"wikigate/x"}, covering...), "manifest has overlapped roots"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".tar.gz")
		writeFile(t, dir, filepath.Base(path), string(withRoots(t, built, c.roots...)))
		_, err := policies.New(t.Context(), policies.Options{Logger: zap.NewNop(), Bundle: &policies.BundleOptions{Source: path}})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: %v", c.name, c.roots, err)
		case c.want != "" && (!errors.Is(err, policies.ErrBundleRefused) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v: %v, want refused: %s", c.name, c.roots, err, c.want)
		}
	}

	live := filepath.Join(dir, "live.tar.gz")
	writeFile(t, dir, "live.tar.gz", string(withRoots(t, built, covering...)))
	e, err := policies.New(t.Context(), policies.Options{Logger: zap.NewNop(), Bundle: &policies.BundleOptions{Source: live}})
	if err != nil {
		t.Fatal(err)
	}
	next := buildBundle(t, defaultPolicyDir, policies.BuildOptions{Revision: "roots-2"})
	writeFile(t, dir, "live.tar.gz", string(withRoots(t, next, "wikigate")))
	if err := e.Reload(t.Context()); !errors.Is(err, policies.ErrBundleRefused) || e.Revision() != "roots-1" {
		t.Errorf("reload of a bundle writing outside its roots: %v, serving %s", err, e.Revision())
	}
}
