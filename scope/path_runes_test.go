package scope

import (
	"testing"
	"unicode"
)

// TestRuneProblemEveryRune compares runeProblem's ASCII shortcut with the
// Unicode definition it stands for, on every rune.
func TestRuneProblemEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := ""
		switch {
		case r == '\\':
			want = "must not contain backslashes"
		case r == '%':
			want = `must not contain "%"`
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			want = "must not contain control characters"
		}
		if got := runeProblem(r); got != want {
			t.Fatalf("runeProblem(%U) = %q, want %q", r, got, want)
		}
	}
}
