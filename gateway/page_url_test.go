package gateway

import "testing"

// A page URL maps back to a repository path the policy can place: a
// section's index with or without its slash, a page, a versioned page.
func TestPagePathFromURL(t *testing.T) {
	for url, want := range map[string][2]string{
		"/system/components/kunora-kgent/":              {"publish/system/components/kunora-kgent/index.md", ""},
		"/system/components/kunora-kgent":               {"publish/system/components/kunora-kgent", ""},
		"/system/components/kunora-kgent/memory":        {"publish/system/components/kunora-kgent/memory", ""},
		"/system/components/kunora-kgent/memory.md":     {"publish/system/components/kunora-kgent/memory.md", ""},
		"https://docs.example.com/v1.0/system/a/?q=1#x": {"publish/system/a/index.md", "v1.0"},
		"/": {"publish/index.md", ""},
	} {
		path, version, err := pagePathFromURL(url)
		if err != nil || path != want[0] || version != want[1] {
			t.Errorf("%s: %q %q %v, want %q %q", url, path, version, err, want[0], want[1])
		}
	}
	for _, bad := range []string{"system/a", "/system/../a", ""} {
		if _, _, err := pagePathFromURL(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}
