package scope

import (
	"errors"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

func TestNormalizePathAccepts(t *testing.T) {
	tests := []struct{ in, want string }{
		{"publish/system/components/kunora-kgent", "publish/system/components/kunora-kgent"},
		{"publish/system/components/kunora-kgent/", "publish/system/components/kunora-kgent"},
		{"publish/system/components/kunora-kgent/index.md", "publish/system/components/kunora-kgent/index.md"},
		{"a", "a"},
		{"a/", "a"},
		{"a/...", "a/..."},
		{"a/.hidden/b", "a/.hidden/b"},
		{"文档/组件", "文档/组件"},
		{"with space/and\"quote", "with space/and\"quote"},
		{strings.Repeat("a", protocol.MaxPathBytes), strings.Repeat("a", protocol.MaxPathBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizePath("path", tt.in)
			if err != nil {
				t.Fatalf("NormalizePath(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("NormalizePath(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizePathRejects(t *testing.T) {
	tests := []struct {
		name, in, reason string
	}{
		{"empty", "", "must not be empty"},
		{"leading slash", "/publish/a", "leading"},
		{"only slash", "/", "leading"},
		{"dotdot", "publish/../secret", `".."`},
		{"leading dotdot", "../publish", `".."`},
		{"trailing dotdot", "publish/..", `".."`},
		{"dot", "publish/./a", `"."`},
		{"only dot", ".", `"."`},
		{"dot with trailing slash", "a/./", `"."`},
		{"empty segment", "a//b", "empty segments"},
		{"two trailing slashes", "a//", "empty segments"},
		{"backslash", `publish\a`, "backslashes"},
		{"backslash dotdot", `publish\..\a`, "backslashes"},
		{"percent", "publish/%2e%2e", `"%"`},
		{"NUL", "publish/a\x00b", "control"},
		{"newline", "publish/a\nb", "control"},
		{"tab", "publish/a\tb", "control"},
		{"DEL", "publish/a\x7fb", "control"},
		{"C1 control", "publish/a\u0085b", "control"},
		{"bidi override", "publish/a\u202eb", "control"},
		{"zero width space format char", "publish/a\u200db", "control"},
		{"line separator", "publish/a\u2028b", "control"},
		{"invalid UTF-8", "publish/\xff", "UTF-8"},
		{"too long", strings.Repeat("a", protocol.MaxPathBytes+1), "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizePath("scope.paths[2]", tt.in)
			if err == nil {
				t.Fatalf("NormalizePath(%q) = %q, want an error", tt.in, got)
			}
			var pe *protocol.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *protocol.Error", err)
			}
			if pe.Code != protocol.CodeInvalidRequest || pe.Status != 400 {
				t.Errorf("code/status = %s/%d, want invalid_request/400", pe.Code, pe.Status)
			}
			if !strings.HasPrefix(pe.Message, "scope.paths[2]: ") {
				t.Errorf("message %q does not name the field", pe.Message)
			}
			if !strings.Contains(pe.Message, tt.reason) {
				t.Errorf("message %q does not say %q", pe.Message, tt.reason)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		prefix, p string
		want      bool
	}{
		{"a/b", "a/b", true},
		{"a/b", "a/b/c", true},
		{"a/b", "a/b/c/d.md", true},
		{"a/b", "a/bc", false},
		{"a/b", "a/b-extras/c", false},
		{"publish/system/components/kunora-kgent", "publish/system/components/kunora-kgent-extras/index.md", false},
		{"a/b", "a", false},
		{"a/b", "A/b", false},
		{"a/b", "a/B/c", false},
		{"a/b", "", false},
		{"", "a", false},
		{"", "", false},
		{"a/b/c", "a/b", false},
	}
	for _, tt := range tests {
		if got := Covers(tt.prefix, tt.p); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.prefix, tt.p, got, tt.want)
		}
	}
}
