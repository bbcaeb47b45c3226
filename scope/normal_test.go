package scope

import "testing"

// FuzzIsNormalPath holds the one-pass check to its definition: p is
// accepted by NormalizePath and comes back unchanged.
func FuzzIsNormalPath(f *testing.F) {
	for _, s := range append(pathSeeds, "a", ".", "..", "a/.", "a/..b", ".a/b", "a\x7f", "a b/c", "é/x/", "a/b\u202e") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		clean, err := NormalizePath("path", p)
		if want := err == nil && clean == p; IsNormalPath(p) != want {
			t.Fatalf("IsNormalPath(%q) = %v, NormalizePath = %q, %v", p, !want, clean, err)
		}
	})
}

func TestIsNormalPath(t *testing.T) {
	for p, want := range map[string]bool{
		"publish/system/components/kunora-kgent":      true,
		"publish/system/components/kunora-kgent/":     false,
		"publish/system/components/kunora-kgent/../x": false,
		"publish/system/components/kunora-kgent/./x":  false,
		"publish//x":         false,
		"publish/x%2e":       false,
		`publish\x`:          false,
		"publish/\x00":       false,
		"/publish":           false,
		"":                   false,
		"文档/组件":              true,
		"文档/组件/":             false,
		"publish/\u202eevil": false,
		"publish/\xff":       false,
		"publish/..hidden":   true,
	} {
		if got := IsNormalPath(p); got != want {
			t.Errorf("IsNormalPath(%q) = %v, want %v", p, got, want)
		}
	}
}
