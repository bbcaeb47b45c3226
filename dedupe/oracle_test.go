package dedupe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/wikigate/wikigate/protocol"
)

// Key was json.Marshal of this struct, hashed; it now writes the same
// bytes by hand (issue 24 point 7: encoding/json was most of the key's
// cost on every answered ask). oldKey and oldNormalizeQuestion are the
// code as it was, the oracle of FuzzKeyMatchesJSON.
type oldKeyInput struct {
	V                  string   `json:"v"`
	EventType          string   `json:"eventType"`
	Question           string   `json:"question"`
	Projects           []string `json:"projects"`
	Paths              []string `json:"paths"`
	Version            string   `json:"version"`
	IncludeWorkingDocs bool     `json:"includeWorkingDocs"`
	CitationPaths      []string `json:"citationPaths"`
}

func oldKeyBytes(eventType, question string, s protocol.Scope, citationPaths []string) []byte {
	b, err := json.Marshal(oldKeyInput{
		V:                  keyVersion,
		EventType:          eventType,
		Question:           oldNormalizeQuestion(question),
		Projects:           SortedUnique(s.Projects),
		Paths:              SortedUnique(s.Paths),
		Version:            s.Version,
		IncludeWorkingDocs: s.IncludeWorkingDocs,
		CitationPaths:      SortedUnique(citationPaths),
	})
	if err != nil {
		panic(err)
	}
	return b
}

func oldKey(eventType, question string, s protocol.Scope, citationPaths []string) string {
	sum := sha256.Sum256(oldKeyBytes(eventType, question, s, citationPaths))
	return hex.EncodeToString(sum[:])
}

func oldNormalizeQuestion(q string) string {
	q = strings.ToLower(norm.NFKC.String(q))
	return strings.Join(strings.FieldsFunc(q, unicode.IsSpace), " ")
}

// splitList makes a list of a fuzzed string: nil for "", else its
// "|"-separated parts (empty ones and repeats included).
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "|")
}

// FuzzKeyMatchesJSON: for any event type, question, scope and citation
// paths, the bytes Key hashes are json.Marshal's of the old input struct,
// and NormalizeQuestion is the old FieldsFunc and Join.
func FuzzKeyMatchesJSON(f *testing.F) {
	f.Add("qa_no_answer", question, "kunora-kgent", "publish/system/components/kunora-kgent", "main", false, "")
	f.Add("qa_answer", "  HOW   is\tagent\nmemory <configured>?  & \u2028 \"x\" \\ \x01 \xff", "b|a|a||", "y|x", "v1.0", true, "p2|p1|p1")
	f.Add("e", "Ｈｏｗ ｉｓ\u00a0ﬁ İstanbul ΣΑΣ", "", "|", "", true, "a|a")
	f.Add("", "", "", "", "", false, "p/ü.md|p/a.md")
	f.Fuzz(func(t *testing.T, eventType, q, projects, paths, version string, working bool, cites string) {
		s := protocol.Scope{Projects: splitList(projects), Paths: splitList(paths), Version: version, IncludeWorkingDocs: working}
		c := splitList(cites)
		got := appendKeyInput(nil, eventType, q, s, c)
		if want := oldKeyBytes(eventType, q, s, c); string(got) != string(want) {
			t.Fatalf("key input\n got %s\nwant %s", got, want)
		}
		if got, want := Key(eventType, q, s, c), oldKey(eventType, q, s, c); got != want {
			t.Fatalf("Key %s, old %s", got, want)
		}
		if got, want := NormalizeQuestion(q), oldNormalizeQuestion(q); got != want {
			t.Fatalf("NormalizeQuestion(%q) = %q, old %q", q, got, want)
		}
	})
}

// TestKeyUnchanged pins one key computed by the old code, so the key of a
// stored feedback record stays the same across the change.
func TestKeyUnchanged(t *testing.T) {
	s := protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{"publish/system/components/kunora-kgent"}, Version: "main"}
	paths := []string{"publish/system/components/kunora-kgent/memory.md", "publish/system/components/kunora-kgent/guides/configure-agent-memory.md"}
	const want = "9875171e4d25289581ca508084cd00915a1faef5debc95caca9782343c72e468" // Key at bf05eb9
	if got := Key(protocol.EventAnswer, "How do I configure agent memory?", s, paths); got != want {
		t.Fatalf("Key %s, was %s", got, want)
	}
}

func BenchmarkKey(b *testing.B) {
	s := protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{"publish/system/components/kunora-kgent"}, Version: "main"}
	paths := []string{"publish/system/components/kunora-kgent/memory.md", "publish/system/components/kunora-kgent/guides/configure-agent-memory.md"}
	b.ReportAllocs()
	for b.Loop() {
		Key(protocol.EventAnswer, "How do I configure agent memory?", s, paths)
	}
}
