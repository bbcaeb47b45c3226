package sessions

import (
	"fmt"
	"testing"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

var (
	t0    = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	alice = Owner{Type: OwnerHuman, ID: "alice"}
	kgent = Owner{Type: OwnerAgent, ID: "kgent-bot"}
	scope = protocol.Scope{Paths: []string{"publish/system/components/kunora-kgent"}, Version: "main"}
)

// newSession mints a session for owner at t0 that lives 30 minutes.
func newSession(t testing.TB, owner Owner, limits Limits) (*Session, string) {
	t.Helper()
	s, token, err := New(owner, scope, limits, 30*time.Minute, t0)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s, token
}

// citation is a realistic citation of chunk n of a kunora-kgent page.
func citation(n int) protocol.Citation {
	page := fmt.Sprintf("publish/system/components/kunora-kgent/page-%d.md", n%7)
	return protocol.Citation{
		Path:          page,
		URL:           "https://wiki.example.com/main/" + page,
		Title:         fmt.Sprintf("Kgent page %d", n%7),
		Anchor:        "memory-backends",
		ChunkID:       fmt.Sprintf("%032x", n),
		SourceProject: "kunora-kgent",
		Version:       "main",
	}
}

// turn is a turn with a fixed token count and the given citations.
func turn(question string, tokens int, citations ...protocol.Citation) Turn {
	return Turn{
		Question:  question,
		Answer:    "The answer to " + question + " [ID:0].",
		Citations: citations,
		At:        t0,
		Tokens:    tokens,
	}
}

func questions(s *Session) []string {
	out := []string{}
	for _, t := range s.Turns {
		out = append(out, t.Question)
	}
	return out
}

func chunkIDs(cs []protocol.Citation) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.ChunkID)
	}
	return out
}
