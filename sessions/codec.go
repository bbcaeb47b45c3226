package sessions

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

// The records below are the stored form of a Session (compressed, see
// encodeSession): JSON with one- or two-letter keys and times as Unix
// nanoseconds. The store holds every live session as bytes, so the keys and RFC 3339 times of the wire types
// would be a large share of its memory (see BenchmarkLiveSessions100k).
type record struct {
	ID        string           `json:"i"`
	TokenHash string           `json:"h"`
	Owner     ownerRecord      `json:"o"`
	Scope     scopeRecord      `json:"s"`
	Turns     []turnRecord     `json:"t,omitempty"`
	Summary   []citationRecord `json:"c,omitempty"`
	Trimmed   int              `json:"n,omitempty"`
	Limits    [2]int           `json:"l"`
	CreatedAt int64            `json:"ca"`
	ExpiresAt int64            `json:"ea"`
}

type ownerRecord struct {
	Type      string `json:"t"`
	ID        string `json:"i,omitempty"`
	Anonymous bool   `json:"a,omitempty"`
}

type scopeRecord struct {
	Projects []string `json:"p,omitempty"`
	Paths    []string `json:"a,omitempty"`
	Version  string   `json:"v,omitempty"`
	Working  bool     `json:"w,omitempty"`
}

type turnRecord struct {
	Question  string           `json:"q"`
	Answer    string           `json:"a,omitempty"`
	Citations []citationRecord `json:"c,omitempty"`
	NoAnswer  bool             `json:"n,omitempty"`
	Reason    string           `json:"r,omitempty"`
	At        int64            `json:"at,omitempty"`
	Tokens    int              `json:"k,omitempty"`
}

type citationRecord struct {
	Path          string `json:"p,omitempty"`
	URL           string `json:"u,omitempty"`
	Title         string `json:"t,omitempty"`
	Anchor        string `json:"a,omitempty"`
	ChunkID       string `json:"c,omitempty"`
	SourceProject string `json:"s,omitempty"`
	Version       string `json:"v,omitempty"`
}

// encodeSession stores a session as DEFLATE-compressed JSON: questions,
// answers and citation paths are text that compresses about 3x, and the
// store holds every live session (the 100,000-session memory budget). The
// JSON is written straight into the compressor, HTML unescaped ("<" as six
// bytes helps no reader).
func encodeSession(s *Session) ([]byte, error) {
	var buf bytes.Buffer
	zw := flateWriters.Get().(*flate.Writer)
	defer flateWriters.Put(zw)
	zw.Reset(&buf)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(toRecord(s)); err != nil || zw.Close() != nil {
		return nil, errors.New("encoding session failed")
	}
	return buf.Bytes(), nil
}

// decodeSession reads what encodeSession wrote, with a pooled decompressor
// (each new one allocates ~40 KiB, on every Get and Update).
func decodeSession(data []byte) (*Session, error) {
	zr := flateReaders.Get().(io.ReadCloser)
	defer flateReaders.Put(zr)
	if err := zr.(flate.Resetter).Reset(bytes.NewReader(data), nil); err != nil {
		return nil, errors.New("decoding stored session failed")
	}
	var r record
	if err := json.NewDecoder(zr).Decode(&r); err != nil {
		return nil, errors.New("decoding stored session failed")
	}
	return fromRecord(&r), nil
}

// flateWriters and flateReaders recycle (de)compressors: a flate.Writer
// allocates ~1 MiB, a reader ~40 KiB.
var (
	flateWriters = sync.Pool{New: func() any {
		zw, _ := flate.NewWriter(nil, flate.BestSpeed)
		return zw
	}}
	flateReaders = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

func toRecord(s *Session) *record {
	r := &record{
		ID:        s.ID,
		TokenHash: s.TokenHash,
		Owner:     ownerRecord(s.Owner),
		Scope: scopeRecord{
			Projects: s.Scope.Projects,
			Paths:    s.Scope.Paths,
			Version:  s.Scope.Version,
			Working:  s.Scope.IncludeWorkingDocs,
		},
		Summary:   toCitationRecords(s.CitationSummary),
		Trimmed:   s.TrimmedTurns,
		Limits:    [2]int{s.Limits.MaxTurns, s.Limits.MaxContextTokens},
		CreatedAt: unixNano(s.CreatedAt),
		ExpiresAt: unixNano(s.ExpiresAt),
	}
	for i := range s.Turns {
		t := &s.Turns[i]
		r.Turns = append(r.Turns, turnRecord{
			Question:  t.Question,
			Answer:    t.Answer,
			Citations: toCitationRecords(t.Citations),
			NoAnswer:  t.NoAnswer,
			Reason:    t.NoAnswerReason,
			At:        unixNano(t.At),
			Tokens:    t.Tokens,
		})
	}
	return r
}

func fromRecord(r *record) *Session {
	s := &Session{
		ID:        r.ID,
		TokenHash: r.TokenHash,
		Owner:     Owner(r.Owner),
		Scope: protocol.Scope{
			Projects:           r.Scope.Projects,
			Paths:              r.Scope.Paths,
			Version:            r.Scope.Version,
			IncludeWorkingDocs: r.Scope.Working,
		},
		CitationSummary: fromCitationRecords(r.Summary),
		TrimmedTurns:    r.Trimmed,
		Limits:          Limits{MaxTurns: r.Limits[0], MaxContextTokens: r.Limits[1]},
		CreatedAt:       fromUnixNano(r.CreatedAt),
		ExpiresAt:       fromUnixNano(r.ExpiresAt),
	}
	for i := range r.Turns {
		t := &r.Turns[i]
		s.Turns = append(s.Turns, Turn{
			Question:       t.Question,
			Answer:         t.Answer,
			Citations:      fromCitationRecords(t.Citations),
			NoAnswer:       t.NoAnswer,
			NoAnswerReason: t.Reason,
			At:             fromUnixNano(t.At),
			Tokens:         t.Tokens,
		})
	}
	return s
}

func toCitationRecords(cs []protocol.Citation) []citationRecord {
	if len(cs) == 0 {
		return nil
	}
	out := make([]citationRecord, len(cs))
	for i, c := range cs {
		out[i] = citationRecord(c)
	}
	return out
}

func fromCitationRecords(rs []citationRecord) []protocol.Citation {
	if len(rs) == 0 {
		return nil
	}
	out := make([]protocol.Citation, len(rs))
	for i, r := range rs {
		out[i] = protocol.Citation(r)
	}
	return out
}

// unixNano stores the zero time as 0 (its UnixNano is undefined).
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
