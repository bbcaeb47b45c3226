package scope

import (
	"strings"
	"testing"
)

// Seeds live in testdata/fuzz/<FuzzName>/ as well; these are the ones worth
// reading next to the invariants.
var pathSeeds = []string{
	"publish/system/components/kunora-kgent",
	"publish/system/components/kunora-kgent/",
	"publish/../etc/passwd",
	"./a",
	"a//b",
	`a\b`,
	"a/%2e%2e/b",
	"/abs",
	"a/\x00",
	"\xff\xfe",
	"文档/组件/",
}

func FuzzNormalizePath(f *testing.F) {
	for _, s := range pathSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := NormalizePath("path", in)
		if err != nil {
			return
		}
		again, err := NormalizePath("path", got)
		if err != nil || again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", in, got, again, err)
		}
		if got == "" || strings.HasPrefix(got, "/") || strings.HasSuffix(got, "/") {
			t.Fatalf("accepted %q as %q: empty or slash at an end", in, got)
		}
		if strings.ContainsAny(got, `\%`) {
			t.Fatalf("accepted %q as %q: backslash or percent", in, got)
		}
		for seg := range strings.SplitSeq(got, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("accepted %q as %q: segment %q", in, got, seg)
			}
		}
	})
}

func FuzzCovers(f *testing.F) {
	f.Add("a/b", "a/b/c")
	f.Add("a/b", "a/bc")
	f.Add("a/b", "a/b")
	f.Add("", "a")
	f.Add("a/", "a/b")
	f.Add("publish/system/components/kunora-kgent", "publish/system/components/kunora-kgent-extras/index.md")
	f.Fuzz(func(t *testing.T, prefix, p string) {
		got := Covers(prefix, p)
		want := prefix != "" && strings.HasPrefix(p, prefix) &&
			(len(p) == len(prefix) || p[len(prefix)] == '/')
		if got != want {
			t.Fatalf("Covers(%q, %q) = %v, want %v", prefix, p, got, want)
		}
		if got && p != prefix && !strings.HasPrefix(p, prefix+"/") {
			t.Fatalf("Covers(%q, %q) without a segment boundary", prefix, p)
		}
	})
}
