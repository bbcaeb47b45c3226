// Package dedupe computes the de-duplication key of feedback records and
// improvement tasks (docs/protocol.md, Results: FeedbackResult): the same
// knowledge gap, reported by anyone, in any spelling of the same question,
// within the same scope and with the same evidence, gets the same key, and
// the key reveals nothing of the question.
package dedupe

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/wikigate/wikigate/protocol"
)

// keyVersion separates this key's domain (and any future change to what it
// covers) from every other sha256 in the system.
const keyVersion = "wikigate-dedupe-v1"

// The key hashes the JSON object json.Marshal made of
//
//	{V, EventType, Question, Projects, Paths, Version, IncludeWorkingDocs, CitationPaths}
//
// under the names "v", "eventType", "question", "projects", "paths",
// "version", "includeWorkingDocs" and "citationPaths", in that order: JSON
// of a fixed shape is the unambiguous join, no choice of question or path
// can make two different inputs encode the same. appendKeyInput writes
// those bytes without encoding/json (dedupe_test.go holds it to
// json.Marshal).

// Key computes the dedupe key (docs/protocol.md, AnswerResult: No answer):
// hex sha256 over eventType, the normalized question (NormalizeQuestion), the
// normalized scope (sorted unique projects, sorted unique paths, version,
// includeWorkingDocs) and the sorted unique citation paths. It is 64 hex
// characters with no plaintext in it.
func Key(eventType, question string, s protocol.Scope, citationPaths []string) string {
	var buf [512]byte
	sum := sha256.Sum256(appendKeyInput(buf[:0], eventType, question, s, citationPaths))
	var key [2 * sha256.Size]byte
	hex.Encode(key[:], sum[:])
	return string(key[:])
}

func appendKeyInput(b []byte, eventType, question string, s protocol.Scope, citationPaths []string) []byte {
	b = append(b, `{"v":`...)
	b = protocol.AppendJSONString(b, keyVersion, true)
	b = append(b, `,"eventType":`...)
	b = protocol.AppendJSONString(b, eventType, true)
	b = append(b, `,"question":`...)
	var q [256]byte
	b = protocol.AppendJSONString(b, appendNormalized(q[:0], question), true)
	b = append(b, `,"projects":`...)
	b = appendSortedUnique(b, s.Projects)
	b = append(b, `,"paths":`...)
	b = appendSortedUnique(b, s.Paths)
	b = append(b, `,"version":`...)
	b = protocol.AppendJSONString(b, s.Version, true)
	b = append(b, `,"includeWorkingDocs":`...)
	b = strconv.AppendBool(b, s.IncludeWorkingDocs)
	b = append(b, `,"citationPaths":`...)
	b = appendSortedUnique(b, citationPaths)
	return append(b, '}')
}

// appendSortedUnique writes SortedUnique(items) as a JSON array; a list
// that is already sorted, unique and without empty entries (one path, or
// none) is written as it is, without the copy.
func appendSortedUnique(b []byte, items []string) []byte {
	if !isSortedUnique(items) {
		items = SortedUnique(items)
	}
	b = append(b, '[')
	for i, v := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = protocol.AppendJSONString(b, v, true)
	}
	return append(b, ']')
}

func isSortedUnique(items []string) bool {
	for i, v := range items {
		if v == "" || i > 0 && items[i-1] >= v {
			return false
		}
	}
	return true
}

// NormalizeQuestion folds the spellings of one question together: Unicode
// NFKC (full-width letters, ligatures, compatibility forms), lower case,
// every run of whitespace collapsed to one space, ends trimmed.
func NormalizeQuestion(q string) string {
	return string(appendNormalized(nil, q))
}

// appendNormalized appends NormalizeQuestion(q): the words of the
// lower-cased NFKC form (runs of unicode.IsSpace between them, as
// strings.FieldsFunc splits) joined by one space.
func appendNormalized(b []byte, q string) []byte {
	q = strings.ToLower(norm.NFKC.String(q))
	sep, words := false, false
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			sep = true
			i += size
			continue
		}
		if sep && words {
			b = append(b, ' ')
		}
		sep, words = false, true
		b = append(b, q[i:i+size]...)
		i += size
	}
	return b
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
