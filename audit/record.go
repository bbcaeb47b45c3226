// Package audit writes one structured record per gate call (docs/security.md,
// Audit): who called what, what was asked for and decided, which backends
// were called and how it ended. Records go to a named zap logger that
// operators route with Caddy's `log` directive. Questions are hashed unless
// the operator opts in; tokens and keys never reach a record.
package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

// Record is one audit record. Fields are filled as the call proceeds; the
// zero value of each means "not reached".
type Record struct {
	Start     time.Time
	RequestID string
	// ClientRequestID is the caller's own X-Request-Id, kept apart from the
	// gate's id so a caller cannot make two records share one.
	ClientRequestID string
	CallerType      string
	CallerID        string
	Credential      string
	KeyID           string // the API key's public prefix (credential api_key); never the key
	Purpose         string
	Endpoint        string
	Tool            string
	RequestedScope  *protocol.Scope
	EffectiveScope  *protocol.Scope
	Decision        *Decision
	Datasets        []string
	Backends        []BackendCall
	Result          string
	Status          int
	Citations       int
	Dropped         int
	SessionID       string
	// PageNote says why the page a question was asked on did not set its
	// scope (a page.url outside the site mapping): the call kept the
	// default scope, and an operator reading the record sees why.
	PageNote string
	// MCPSessionID and JSONRPCID tie a call that came through the MCP
	// front door to its MCP session (none on the stateless revision) and
	// to the JSON-RPC request, as the client's own logs know them.
	MCPSessionID string
	JSONRPCID    string
	question     string

	// UnsafeURLsDropped counts the backend results whose url the gate
	// removed because it was not http(s) or a relative path (safeurl).
	UnsafeURLsDropped int

	// Tokens is what the call's generation cost (docs/operators.md, Token accounting
	// and budgets).
	Tokens Tokens

	// TraceID is the W3C trace id of the call's span when tracing is on
	// (docs/operators.md, Tracing), so a record leads to its trace and back.
	TraceID string
}

// Decision is the policy outcome as recorded.
type Decision struct {
	Allow    bool
	Code     string
	Reason   string
	Revision string
	// Digest is the SHA-256 of the revision's files, what a kept copy of
	// its sources hashes to (`wikigate policy explain --revisions`).
	Digest string
	// Rules name the policy rules that decided a denial, file:line name.
	Rules []string
}

// BackendCall is one call to RAGFlow or Meilisearch.
type BackendCall struct {
	Name    string
	Status  int
	Latency time.Duration
	Error   string
}

// New starts a record for a request.
func New(requestID, endpoint string, start time.Time) *Record {
	return &Record{RequestID: requestID, Endpoint: endpoint, Start: start}
}

// SetQuestion remembers the question; the logger decides whether it is
// written in clear (operator opt-in) or only as a hash.
func (r *Record) SetQuestion(q string) { r.question = q }

// AddBackend records one backend call.
func (r *Record) AddBackend(name string, status int, latency time.Duration, err error) {
	call := BackendCall{Name: name, Status: status, Latency: latency}
	if err != nil {
		call.Error = err.Error()
	}
	r.Backends = append(r.Backends, call)
}

// A call whose caller hung up before it was answered is a client cancel:
// its own result and status (nginx's 499 "client closed request"; nothing
// was written back), never a protocol error code.
const (
	ResultClientClosed = "client_closed"
	StatusClientClosed = 499
)

// ClientClosed records a client cancel.
func (r *Record) ClientClosed() {
	r.Result = ResultClientClosed
	r.Status = StatusClientClosed
}

// Fail records the protocol error a call ended with.
func (r *Record) Fail(e *protocol.Error) {
	r.Result = string(e.Code)
	r.Status = e.Status
}

// HashQuestion is the stable, non-reversible form of a question written to
// audit records by default.
func HashQuestion(q string) string {
	if q == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(q))
	return hex.EncodeToString(sum[:])
}
