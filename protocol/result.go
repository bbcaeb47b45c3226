package protocol

import (
	"bytes"
	"encoding/json"
	"sync"
)

// Result is a call's answer once it succeeded, as the two fronts render it:
// the HTTP routes write AppendBody as the response (docs/protocol.md,
// "Results"), MCP's tools/call writes AppendStructured as structuredContent
// beside AppendText as its text content and Links as resource links
// (docs/agents.md, "MCP"). A failed call is an error instead (a *Error),
// which each front renders on its own (an HTTP envelope, an isError result).
//
// The kinds are this package's, sealed by an unexported method: search
// (*SearchResult), get_page (*PageResult), ask and session turns
// (*AnswerResult), get_context (*ContextPack), the feedback tools
// (*FeedbackReceipt), and bodies the fronts write as encoding/json writes
// their value (JSON: a created session, a session's history, the
// Meilisearch-compatible routes). A new kind says how each front renders
// it or does not compile, so neither front reads a result by type switch.
type Result interface {
	// AppendBody appends the HTTP response body.
	AppendBody(dst []byte) ([]byte, error)
	// AppendStructured appends MCP's structuredContent: the body's JSON
	// as json.Marshal writes it (HTML escaped, no newline).
	AppendStructured(dst []byte) ([]byte, error)
	// AppendText appends the text a model (or a client that reads no
	// structured output) is shown.
	AppendText(dst []byte) []byte
	// Links are the pages MCP offers beside the text as resource links:
	// an answer's citations; none for the other kinds.
	Links() []Citation
	// Replayed reports a stored response an idempotent retry gets again,
	// which HTTP says in Idempotent-Replayed.
	Replayed() bool

	result() // sealed: the kinds are this package's
}

// The kinds written by hand (search, answer): the HTTP body is the JSON an
// Encoder with SetEscapeHTML(false) writes, its newline included;
// structuredContent is json.Marshal's bytes.

func (r *SearchResult) AppendBody(dst []byte) ([]byte, error) {
	return withNewline(r.AppendJSON(dst, false))
}

func (r *SearchResult) AppendStructured(dst []byte) ([]byte, error) { return r.AppendJSON(dst, true) }
func (r *SearchResult) AppendText(dst []byte) []byte                { return appendSearchText(dst, r) }
func (r *SearchResult) Links() []Citation                           { return nil }
func (r *SearchResult) Replayed() bool                              { return false }
func (r *SearchResult) result()                                     {}

func (r *AnswerResult) AppendBody(dst []byte) ([]byte, error) {
	return withNewline(r.AppendJSON(dst, false))
}

func (r *AnswerResult) AppendStructured(dst []byte) ([]byte, error) { return r.AppendJSON(dst, true) }
func (r *AnswerResult) AppendText(dst []byte) []byte                { return appendAnswerText(dst, r) }
func (r *AnswerResult) Links() []Citation                           { return r.Citations }
func (r *AnswerResult) Replayed() bool                              { return false }
func (r *AnswerResult) result()                                     {}

// The kinds encoding/json writes (get_page, get_context).

func (r *PageResult) AppendBody(dst []byte) ([]byte, error)       { return appendEncoded(dst, r, false) }
func (r *PageResult) AppendStructured(dst []byte) ([]byte, error) { return appendEncoded(dst, r, true) }
func (r *PageResult) AppendText(dst []byte) []byte                { return appendPagesText(dst, r) }
func (r *PageResult) Links() []Citation                           { return nil }
func (r *PageResult) Replayed() bool                              { return false }
func (r *PageResult) result()                                     {}

func (r *ContextPack) AppendBody(dst []byte) ([]byte, error) { return appendEncoded(dst, r, false) }
func (r *ContextPack) AppendStructured(dst []byte) ([]byte, error) {
	return appendEncoded(dst, r, true)
}
func (r *ContextPack) AppendText(dst []byte) []byte { return appendContextText(dst, r) }
func (r *ContextPack) Links() []Citation            { return nil }
func (r *ContextPack) Replayed() bool               { return false }
func (r *ContextPack) result()                      {}

// FeedbackReceipt is the answer of create_feedback and
// create_improvement_task: the response the feedback store kept with the
// submission (json.Marshal's bytes, rendered inside its transaction), so
// that an idempotent retry gets the first response byte for byte.
type FeedbackReceipt struct {
	Body   []byte
	Replay bool // the stored response of an earlier call with the same idempotencyKey
}

// AppendBody is the stored response as it was first written.
func (r *FeedbackReceipt) AppendBody(dst []byte) ([]byte, error) { return append(dst, r.Body...), nil }

// AppendStructured is the stored response as encoding/json re-encodes it
// (compact, HTML escaped: the same bytes for what json.Marshal wrote).
func (r *FeedbackReceipt) AppendStructured(dst []byte) ([]byte, error) {
	return appendEncoded(dst, json.RawMessage(r.Body), true)
}

func (r *FeedbackReceipt) AppendText(dst []byte) []byte { return appendFeedbackText(dst, r.Body) }
func (r *FeedbackReceipt) Links() []Citation            { return nil }
func (r *FeedbackReceipt) Replayed() bool               { return r.Replay }
func (r *FeedbackReceipt) result()                      {}

// JSON is v as a Result both fronts write as encoding/json writes v, for
// bodies no tool renders as text (a created session, a session's history,
// the Meilisearch-compatible routes): MCP's text is then the same JSON.
func JSON[T any](v T) Result { return &jsonBody[T]{v: v} }

type jsonBody[T any] struct{ v T }

func (r *jsonBody[T]) AppendBody(dst []byte) ([]byte, error) { return appendEncoded(dst, r.v, false) }
func (r *jsonBody[T]) AppendStructured(dst []byte) ([]byte, error) {
	return appendEncoded(dst, r.v, true)
}

// AppendText is the structured JSON; a value JSON cannot carry has no text
// (AppendStructured reports it).
func (r *jsonBody[T]) AppendText(dst []byte) []byte {
	b, err := appendEncoded(dst, r.v, true)
	if err != nil {
		return dst
	}
	return b
}

func (r *jsonBody[T]) Links() []Citation { return nil }
func (r *jsonBody[T]) Replayed() bool    { return false }
func (r *jsonBody[T]) result()           {}

// withNewline ends an HTTP body as an Encoder does; a body that could not
// be written stays the error.
func withNewline(b []byte, err error) ([]byte, error) {
	if err != nil {
		return b, err
	}
	return append(b, '\n'), nil
}

// encoder is an Encoder with its buffer, kept in a pool: every get_page and
// get_context answer is written through one.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.buf)
	return e
}}

// maxPooledEncoder: a rare huge body (a big get_page batch) leaves its
// buffer to the GC rather than pinned in the pool.
const maxPooledEncoder = 256 << 10

// appendEncoded appends v as encoding/json writes it: json.Marshal's
// bytes when escapeHTML (no newline), an Encoder's with
// SetEscapeHTML(false) otherwise (its newline included, as the HTTP routes
// have always written their bodies).
func appendEncoded(dst []byte, v any, escapeHTML bool) ([]byte, error) {
	e := encoders.Get().(*encoder)
	defer func() {
		if e.buf.Cap() <= maxPooledEncoder {
			encoders.Put(e)
		}
	}()
	e.buf.Reset()
	e.enc.SetEscapeHTML(escapeHTML)
	if err := e.enc.Encode(v); err != nil {
		return dst, err
	}
	b := e.buf.Bytes()
	if escapeHTML {
		b = bytes.TrimSuffix(b, []byte{'\n'})
	}
	return append(dst, b...), nil
}
