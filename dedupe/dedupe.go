// Package dedupe computes the de-duplication key of feedback records and
// improvement tasks (docs/protocol.md, Results: FeedbackResult): the same
// knowledge gap, reported by anyone, in any spelling of the same question,
// within the same scope and with the same evidence, gets the same key, and
// the key reveals nothing of the question.
package dedupe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/wikigate/wikigate/protocol"
)

// keyVersion separates this key's domain (and any future change to what it
// covers) from every other sha256 in the system.
const keyVersion = "wikigate-dedupe-v1"

// keyInput is what the key hashes. JSON encoding of a fixed struct is the
// unambiguous join: no choice of question or path can make two different
// inputs encode the same.
type keyInput struct {
	V                  string   `json:"v"`
	EventType          string   `json:"eventType"`
	Question           string   `json:"question"`
	Projects           []string `json:"projects"`
	Paths              []string `json:"paths"`
	Version            string   `json:"version"`
	IncludeWorkingDocs bool     `json:"includeWorkingDocs"`
	CitationPaths      []string `json:"citationPaths"`
}

// Key computes the dedupe key (docs/protocol.md, AnswerResult: No answer):
// hex sha256 over eventType, the normalized question (NormalizeQuestion), the
// normalized scope (sorted unique projects, sorted unique paths, version,
// includeWorkingDocs) and the sorted unique citation paths. It is 64 hex
// characters with no plaintext in it.
func Key(eventType, question string, s protocol.Scope, citationPaths []string) string {
	in := keyInput{
		V:                  keyVersion,
		EventType:          eventType,
		Question:           NormalizeQuestion(question),
		Projects:           SortedUnique(s.Projects),
		Paths:              SortedUnique(s.Paths),
		Version:            s.Version,
		IncludeWorkingDocs: s.IncludeWorkingDocs,
		CitationPaths:      SortedUnique(citationPaths),
	}
	b, err := json.Marshal(in)
	if err != nil {
		panic("dedupe: encoding key input: " + err.Error()) // strings and bools always encode
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// NormalizeQuestion folds the spellings of one question together: Unicode
// NFKC (full-width letters, ligatures, compatibility forms), lower case,
// every run of whitespace collapsed to one space, ends trimmed.
func NormalizeQuestion(q string) string {
	q = strings.ToLower(norm.NFKC.String(q))
	return strings.Join(strings.FieldsFunc(q, unicode.IsSpace), " ")
}

// SortedUnique returns a sorted copy of items without duplicates or empty
// entries; never nil, so an absent list and an empty one hash alike. It is
// exported so whatever shows a keyed list to people (issue text) shows it
// exactly as the key sees it.
func SortedUnique(items []string) []string {
	out := make([]string, 0, len(items))
	for _, v := range items {
		if v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
