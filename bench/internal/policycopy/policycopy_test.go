package policycopy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCopyKeepsThePolicyFilesAndEditsTheData(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{
		"authz.rego":      "package authz\n",
		"authz_test.rego": "package authz_test\n",
		"data.json":       `{"limits":{"per_minute":{}},"catalog":{"index":"wiki_pages"}}`,
		"other.json":      `{"kept":"as is"}`,
		"README.md":       "not policy\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(src, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "copy")
	err := Copy(src, dst, func(data map[string]any) error {
		delete(data, "limits")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dst)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"authz.rego", "data.json", "other.json"}; !slices.Equal(names, want) {
		t.Fatalf("copied %v, want %v", names, want)
	}
	for name, want := range map[string]string{
		"authz.rego": files["authz.rego"], "other.json": files["other.json"],
		"data.json": `{"catalog":{"index":"wiki_pages"}}`,
	} {
		if got, _ := os.ReadFile(filepath.Join(dst, name)); string(got) != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

func TestCopyRefusesDataThatIsNotJSON(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "data.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Copy(src, t.TempDir(), func(map[string]any) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "data.json:") {
		t.Fatalf("err %v, want a data.json error", err)
	}
}
