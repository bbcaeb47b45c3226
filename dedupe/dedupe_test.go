package dedupe

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

var kgent = protocol.Scope{
	Projects: []string{"kunora-kgent"},
	Paths:    []string{"publish/system/components/kunora-kgent"},
	Version:  "main",
}

const question = "How is agent memory configured?"

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func TestSameQuestionSameKey(t *testing.T) {
	base := Key(protocol.EventNoAnswer, question, kgent, nil)
	for _, q := range []string{
		"how is agent memory configured?",
		"  HOW   is\tagent\nmemory configured?  ",
		"Ｈｏｗ ｉｓ ａｇｅｎｔ ｍｅｍｏｒｙ ｃｏｎｆｉｇｕｒｅｄ？",      // full-width: NFKC folds it
		"How\u00a0is agent memory configured?", // no-break space
	} {
		if got := Key(protocol.EventNoAnswer, q, kgent, nil); got != base {
			t.Errorf("%q: key differs from %q", q, question)
		}
	}
}

func TestScopeAndCitationOrderDoNotMatter(t *testing.T) {
	a := protocol.Scope{Projects: []string{"b", "a", "a"}, Paths: []string{"y", "x"}, Version: "main"}
	b := protocol.Scope{Projects: []string{"a", "b"}, Paths: []string{"x", "y", "x"}, Version: "main"}
	if Key("e", question, a, []string{"p2", "p1", "p1"}) != Key("e", question, b, []string{"p1", "p2"}) {
		t.Error("order or repeats changed the key")
	}
	if Key("e", question, a, nil) != Key("e", question, a, []string{}) {
		t.Error("nil and empty citations differ")
	}
}

func TestDifferentInputsDifferentKeys(t *testing.T) {
	base := Key(protocol.EventNoAnswer, question, kgent, nil)
	working := kgent
	working.IncludeWorkingDocs = true
	v1 := kgent
	v1.Version = "v1.0"
	wider := kgent
	wider.Paths = []string{"publish/system/components/kunora-kgent", "publish/operations"}
	other := kgent
	other.Projects = []string{"kunora-gateway"}
	variants := map[string]string{
		"event type":   Key("qa_feedback", question, kgent, nil),
		"question":     Key(protocol.EventNoAnswer, "How is agent memory deployed?", kgent, nil),
		"working docs": Key(protocol.EventNoAnswer, question, working, nil),
		"version":      Key(protocol.EventNoAnswer, question, v1, nil),
		"paths":        Key(protocol.EventNoAnswer, question, wider, nil),
		"projects":     Key(protocol.EventNoAnswer, question, other, nil),
		"citations":    Key(protocol.EventNoAnswer, question, kgent, []string{"publish/system/components/kunora-kgent/memory.md"}),
	}
	seen := map[string]string{base: "base"}
	for name, k := range variants {
		if prev, dup := seen[k]; dup {
			t.Errorf("%s gives the same key as %s", name, prev)
		}
		seen[k] = name
	}
}

// TestNoAmbiguousJoin: moving text between fields must change the key.
func TestNoAmbiguousJoin(t *testing.T) {
	a := Key("qa", "x"+"y", protocol.Scope{Paths: []string{"a,b"}}, nil)
	b := Key("qax", "y", protocol.Scope{Paths: []string{"a", "b"}}, nil)
	c := Key("qa", "xy", protocol.Scope{Paths: []string{"a", "b"}}, nil)
	if a == b || a == c || b == c {
		t.Error("field boundaries are ambiguous")
	}
}

func TestKeyShapeHasNoPlaintext(t *testing.T) {
	k := Key(protocol.EventNoAnswer, "deadbeef secret", kgent, []string{"cafe"})
	if !hex64.MatchString(k) {
		t.Fatalf("key %q is not 64 lowercase hex characters", k)
	}
	for _, part := range []string{"deadbeef", "secret", "cafe", "kgent", "main"} {
		if strings.Contains(k, part) {
			t.Errorf("key contains %q", part)
		}
	}
}

func TestNormalizeQuestion(t *testing.T) {
	cases := map[string]string{
		"  Hello\t\tWorld \n":             "hello world",
		"ＡＢＣ　ｄｅｆ":                         "abc def",
		"kunora-kgent 如何配置 agent memory?": "kunora-kgent 如何配置 agent memory?",
		"ﬁle": "file",
		"":    "",
	}
	for in, want := range cases {
		if got := NormalizeQuestion(in); got != want {
			t.Errorf("NormalizeQuestion(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSortedUniqueLeavesItsInputAlone(t *testing.T) {
	in := []string{"b", "", "a", "b"}
	got := SortedUnique(in)
	if strings.Join(got, ",") != "a,b" || strings.Join(in, ",") != "b,,a,b" {
		t.Fatalf("SortedUnique(%q) = %q", in, got)
	}
	if got := SortedUnique(nil); got == nil || len(got) != 0 {
		t.Fatalf("SortedUnique(nil) = %#v, want an empty non-nil slice", got)
	}
}
