package normalizer

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Support scoring (docs/protocol.md, "Citations and grounding"): how much of
// what a sentence says can be found in the chunk it cites, without a model. A
// sentence becomes weighted tokens; its score against a chunk is the weight
// found in the chunk over the total weight, from 0 to 1. The weights favour
// what a wrong citation gets wrong: numbers and code identifiers count 3,
// names 2, other words 1, and a quoted span ("...", “...”, `...`) counts 3 and
// is found only verbatim.
const (
	weightWord   = 1
	weightName   = 2
	weightNumber = 3
	weightCode   = 3
	weightQuote  = 3
)

// minWordLen: shorter plain words ("is", "to") say too little to count.
const minWordLen = 3

// stopWords carry no claim of their own.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "are": true, "was": true, "were": true, "with": true,
	"that": true, "this": true, "from": true, "into": true, "your": true, "you": true, "can": true,
	"will": true, "its": true, "has": true, "have": true, "been": true, "also": true, "then": true,
	"than": true, "which": true, "when": true, "what": true, "how": true, "there": true, "these": true,
	"those": true, "they": true, "them": true, "their": true, "our": true, "may": true, "must": true,
	"should": true, "would": true, "could": true, "does": true, "did": true, "each": true, "any": true,
	"all": true, "one": true, "only": true, "more": true, "most": true, "other": true, "such": true,
	"use": true, "used": true, "uses": true, "using": true, "set": true, "see": true,
}

// token is one scored unit of a sentence.
type token struct {
	text   string // lower case; a quoted span keeps its case
	weight int
	kind   tokenKind
}

type tokenKind uint8

const (
	wordToken  tokenKind = iota // matched by stem at a word start
	exactToken                  // matched as a whole word (numbers, code, names)
	cjkToken                    // a CJK bigram, matched anywhere
	quoteToken                  // a quoted span, matched verbatim
)

// claimTokens is a sentence made ready to score.
type claimTokens struct {
	tokens    []token // heaviest first, so a failing score stops early
	total     int
	cjkWeight int
}

// tokenizeClaim reads a sentence (markers already removed).
func tokenizeClaim(s string) claimTokens {
	var ct claimTokens
	s = stripLeader(s)
	ct.tokens = make([]token, 0, len(s)/8+4) // about a token a word, most words short
	rest := extractQuotes(s, &ct)
	// An ASCII sentence is lowered once and each word's lower case is a
	// slice of it (ASCII lowers byte for byte); any other is lowered a word
	// at a time, since a rune's lower case may be longer or shorter.
	lower := ""
	if isASCII(rest) {
		lower = strings.ToLower(rest)
	}
	first := true
	for i := 0; i < len(rest); {
		if c := rest[i]; c < utf8.RuneSelf && !isWordByte(c) {
			i++ // neither CJK nor a word's start
			continue
		}
		r, size := utf8.DecodeRuneInString(rest[i:])
		switch {
		case isCJK(r):
			j := i
			for j < len(rest) {
				r2, n := utf8.DecodeRuneInString(rest[j:])
				if !isCJK(r2) {
					break
				}
				j += n
			}
			ct.addCJK(rest[i:j])
			i, first = j, false
		case wordRune(r):
			j := wordEnd(rest, i)
			if lower != "" {
				ct.addWord(rest[i:j], lower[i:j], first)
			} else {
				ct.addWord(rest[i:j], strings.ToLower(rest[i:j]), first)
			}
			i, first = j, false
		default:
			i += size
		}
	}
	slices.SortStableFunc(ct.tokens, func(a, b token) int { return b.weight - a.weight })
	return ct
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// stripLeader drops a list, quote or heading leader: "1." is no claim.
func stripLeader(s string) string {
	t := strings.TrimLeft(s, " \t")
	if t == "" || strings.IndexByte(leaderStarts, t[0]) < 0 {
		return s
	}
	return mdLeader.ReplaceAllString(s, "")
}

// leaderStarts are the bytes mdLeader can match first after blanks.
const leaderStarts = "-*+>#0123456789"

// quotePairs open and close quoted spans.
var quotePairs = [][2]string{{"`", "`"}, {`"`, `"`}, {"“", "”"}, {"「", "」"}}

// extractQuotes adds the quoted spans of s as quote tokens and returns s
// without them, so their words are not counted twice.
func extractQuotes(s string, ct *claimTokens) string {
	if !mayQuote(s) {
		return s
	}
	// Only a quote's first byte can start a span ("“" and "「" start with
	// 0xE2 and 0xE3); the text between spans is copied a run at a time.
	var rest strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if c := s[i]; c != '`' && c != '"' && c != 0xE2 && c != 0xE3 {
			i++
			continue
		}
		open, close, ok := quoteAt(s[i:])
		if ok {
			if j := strings.Index(s[i+len(open):], close); j > 0 && j <= maxQuoteBytes {
				span := strings.TrimSpace(s[i+len(open) : i+len(open)+j])
				if span != "" {
					ct.add(token{text: span, weight: weightQuote, kind: quoteToken})
				}
				if last == 0 {
					rest.Grow(len(s))
				}
				rest.WriteString(s[last:i])
				rest.WriteByte(' ')
				i += len(open) + j + len(close)
				last = i
				continue
			}
		}
		i++
	}
	if last == 0 {
		return s // no span: rest would be s again
	}
	rest.WriteString(s[last:])
	return rest.String()
}

// mayQuote: s holds the first byte of some quote (quotePairs' openers
// "`", "\"", "“" and "「" start with '`', '"', 0xE2 and 0xE3), so
// extractQuotes must look.
func mayQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '`', '"', 0xE2, 0xE3:
			return true
		}
	}
	return false
}

// maxQuoteBytes: a longer "quote" is more likely an unbalanced mark.
const maxQuoteBytes = 200

func quoteAt(s string) (open, close string, ok bool) {
	for _, q := range quotePairs {
		if strings.HasPrefix(s, q[0]) {
			return q[0], q[1], true
		}
	}
	return "", "", false
}

func wordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isWordByte(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isWordByte is wordRune for an ASCII byte.
func isWordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// wordEnd: a word runs over letters, digits and "_", and over ".", "-",
// "/", ":" between them ("v1.0", "memory.backend", "kunora-kgent").
func wordEnd(s string, i int) int {
	for i < len(s) {
		if isWordByte(s[i]) {
			i++ // the usual case, without decoding
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case wordRune(r) && !isCJK(r):
			i += n
		case strings.ContainsRune(".-/:", r) && i+n < len(s):
			next, _ := utf8.DecodeRuneInString(s[i+n:])
			if !wordRune(next) || isCJK(next) {
				return i
			}
			i += n
		default:
			return i
		}
	}
	return i
}

// isCJK: Han, kana or Hangul (nothing below U+1100 is).
func isCJK(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// addWord classifies a word (lower is its lower case): a number or code
// identifier (digit, "_", ".", "/", an inner capital) counts 3 and must
// match whole; a name (capitalized mid-sentence, or "-"-joined, or all
// capitals) counts 2; a plain word of minWordLen letters or more that is
// not a stop word counts 1 and matches by stem.
func (ct *claimTokens) addWord(w, lower string, first bool) {
	f := readWord(w)
	switch {
	case f.digit:
		ct.add(token{text: lower, weight: weightNumber, kind: exactToken})
	case f.code || f.innerCapital():
		ct.add(token{text: lower, weight: weightCode, kind: exactToken})
	case f.dash || (!first && f.startsUpper) || f.allUpper():
		ct.add(token{text: lower, weight: weightName, kind: exactToken})
	case f.runes >= minWordLen && !stopWords[lower]:
		ct.add(token{text: stem(lower), weight: weightWord, kind: wordToken})
	}
}

// wordShape is what addWord asks of a word, read in one pass.
type wordShape struct {
	digit       bool // an ASCII digit
	code        bool // "_", ".", "/" or ":"
	dash        bool // "-"
	startsUpper bool // the first rune is upper case
	upperLater  bool // a rune after the first is upper case
	anyLower    bool // some rune is lower case
	letters     int
	runes       int
}

// allUpper: no lower-case rune and at least two letters ("API", "HTTP/3").
func (f wordShape) allUpper() bool { return !f.anyLower && f.letters >= 2 }

// innerCapital: an upper-case rune after the first, in a word that is not
// all capitals ("maxTurns").
func (f wordShape) innerCapital() bool { return f.upperLater && !f.allUpper() }

func readWord(w string) wordShape {
	var f wordShape
	for i, r := range w {
		f.runes++
		var upper, lower, letter bool
		if r < utf8.RuneSelf {
			switch {
			case 'a' <= r && r <= 'z':
				lower, letter = true, true
			case 'A' <= r && r <= 'Z':
				upper, letter = true, true
			case '0' <= r && r <= '9':
				f.digit = true
			case r == '_' || r == '.' || r == '/' || r == ':':
				f.code = true
			case r == '-':
				f.dash = true
			}
		} else {
			upper, lower, letter = unicode.IsUpper(r), unicode.IsLower(r), unicode.IsLetter(r)
		}
		if upper {
			f.startsUpper = f.startsUpper || i == 0
			f.upperLater = f.upperLater || i > 0
		}
		f.anyLower = f.anyLower || lower
		if letter {
			f.letters++
		}
	}
	return f
}

// addCJK adds a run of CJK text as bigrams (one character alone).
func (ct *claimTokens) addCJK(run string) {
	prev := -1
	for i := range run {
		if prev >= 0 {
			_, n := utf8.DecodeRuneInString(run[i:])
			ct.add(token{text: run[prev : i+n], weight: weightWord, kind: cjkToken})
		}
		prev = i
	}
	if utf8.RuneCountInString(run) == 1 {
		ct.add(token{text: run, weight: weightWord, kind: cjkToken})
	}
}

// add keeps one token per text, with its highest weight.
func (ct *claimTokens) add(t token) {
	for i := range ct.tokens {
		if ct.tokens[i].text == t.text && ct.tokens[i].kind == t.kind {
			if t.weight > ct.tokens[i].weight {
				ct.total += t.weight - ct.tokens[i].weight
				ct.tokens[i].weight = t.weight
			}
			return
		}
	}
	ct.tokens = append(ct.tokens, t)
	ct.total += t.weight
	if t.kind == cjkToken {
		ct.cjkWeight += t.weight
	}
}

// stemSuffixes are cut from plain words so "configured" finds
// "configure" and "memories" finds "memory" (by the common stem).
var stemSuffixes = []string{"ing", "ies", "es", "ed", "s", "e", "y"}

func stem(w string) string {
	for _, suf := range stemSuffixes {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 4 {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// chunkText is a chunk's content as scoring reads it.
type chunkText struct {
	raw, lower string
	cjk        bool // holds CJK text
	read       bool // set: an unset chunkText in chunkTexts is not read yet
}

func newChunkText(content string) chunkText {
	lower, cjk := lowerText(content)
	return chunkText{raw: content, lower: lower, cjk: cjk, read: true}
}

// chunkTexts are the chunks of a prompt as scoring read them, by block
// number (one allocation for all; an unread one has read false). An
// answer's grounding reads the chunks its sentences cite, and
// CheckCoverage reads the cited ones again.
type chunkTexts []chunkText

// of is chunk n's text (content), read once (again if the content is
// another).
func (ts chunkTexts) of(n int, content string) *chunkText {
	if t := &ts[n]; !t.read || t.raw != content {
		*t = newChunkText(content)
	}
	return &ts[n]
}

// lowerText is strings.ToLower(s) (invalid UTF-8 becomes U+FFFD as there),
// faster on the usual chunk: English text with a few non-ASCII runes
// ("—", "é"), which strings.ToLower maps rune by rune in full. Runs of
// ASCII bytes that need no change are copied whole. cjk reports whether
// some rune of s isCJK (an invalid byte reads as U+FFFD), found on the
// way: only non-ASCII runes can be.
func lowerText(s string) (lower string, cjk bool) {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return strings.ToLower(s), false
	}
	var b strings.Builder
	b.Grow(len(s) + utf8.UTFMax)
	for i = 0; i < len(s); {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
			i++
		case c < utf8.RuneSelf:
			j := plainASCIIEnd(s, i+1)
			b.WriteString(s[i:j])
			i = j
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			cjk = cjk || isCJK(r)
			b.WriteRune(unicode.ToLower(r)) // an invalid byte decodes as U+FFFD
			i += size
		}
	}
	return b.String(), cjk
}

// plainASCIIEnd is the end of the run from s[i] of ASCII bytes that are
// not capitals (what lowerText copies as it is), eight bytes at a time:
// with no high bit set, adding 0x3f sets a byte's high bit from 'A' up
// and adding 0x25 from past 'Z', without a carry into the next byte.
func plainASCIIEnd(s string, i int) int {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&msb != 0 {
			break // a non-ASCII byte in these eight: the byte loop finds it
		}
		if capitals := (x + 0x3f*lsb) &^ (x + 0x25*lsb) & msb; capitals != 0 {
			return i + bits.TrailingZeros64(capitals)/8
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	return i
}

// scoreAbove is the share of the sentence's weight found in the chunk. A
// sentence with nothing to weigh ("Yes.") scores 1: it claims nothing a
// chunk could fail to hold. CJK text cannot be found in a chunk without
// any (a Chinese answer citing an English page): it is left out, and the
// sentence is judged on its names, numbers and identifiers alone, or
// scores 0 without any. It stops as soon as the score cannot
// reach floor any more and then returns something below floor: most
// chunks a sentence is tried against (the gate looking for its best
// support) fail early, on a heavy token.
func (ct claimTokens) scoreAbove(c *chunkText, floor float64) float64 {
	if ct.total == 0 {
		return 1
	}
	total := ct.total
	if !c.cjk {
		total -= ct.cjkWeight
	}
	if total == 0 {
		return 0
	}
	found, missed := 0, 0
	for _, t := range ct.tokens {
		if t.kind == cjkToken && !c.cjk {
			continue
		}
		if t.found(c) {
			found += t.weight
			continue
		}
		missed += t.weight
		if float64(total-missed) < floor*float64(total) {
			return float64(total-missed) / float64(total) / 2
		}
	}
	return float64(found) / float64(total)
}

func (t token) found(c *chunkText) bool {
	switch t.kind {
	case quoteToken:
		return strings.Contains(c.raw, t.text)
	case cjkToken:
		return strings.Contains(c.lower, t.text)
	default:
		return containsWord(c.lower, t.text, t.kind == exactToken)
	}
}

// containsWord finds w in s at a word start; whole also wants a word end.
func containsWord(s, w string, whole bool) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		if wordBoundaryBefore(s, i) && (!whole || wordBoundaryAfter(s, i+len(w))) {
			return true
		}
		from = i + 1
	}
	return false
}

func wordBoundaryBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return i == 0 || !wordRune(r)
}

func wordBoundaryAfter(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return i == len(s) || !wordRune(r)
}
