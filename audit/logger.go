package audit

import (
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/wikigate/wikigate/protocol"
)

// Logger writes records. LogQuestions is the operator's opt-in to write
// questions in clear; without it only their SHA-256 is written.
type Logger struct {
	z            *zap.Logger
	logQuestions bool
	now          func() time.Time
}

// NewLogger wraps z (nil → no-op). Name the logger so operators can route
// audit records separately, e.g. `log { include http.handlers.wikigate.audit }`.
func NewLogger(z *zap.Logger, logQuestions bool) *Logger {
	if z == nil {
		z = zap.NewNop()
	}
	return &Logger{z: z, logQuestions: logQuestions, now: time.Now}
}

// LogsQuestions reports the operator's log_questions choice, so other views
// of a question (a session's history) follow the same privacy setting.
func (l *Logger) LogsQuestions() bool { return l.logQuestions }

// maxFields is the most fields a record has; fieldPool holds slices of
// that capacity, so a record's fields are never allocated or regrown (the
// encoders copy what they keep).
const maxFields = 28

var fieldPool = sync.Pool{New: func() any { fs := make([]zap.Field, 0, maxFields); return &fs }}

// Write emits r as one info-level line. It returns the error of the
// writers the line went to (an audit file in the sync mode whose batch
// failed or did not land in time), which zap itself only prints on its
// error output: the caller decides whether the call may still be
// answered (see Landing).
func (l *Logger) Write(r *Record) error {
	ce := l.z.Check(zapcore.InfoLevel, "wikigate call")
	if ce == nil {
		return nil
	}
	failed := failurePool.Get().(*writeFailure)
	failed.next, ce.ErrorOutput = ce.ErrorOutput, failed
	fs := fieldPool.Get().(*[]zap.Field)
	*fs = l.appendFields((*fs)[:0], r)
	ce.Write(*fs...)
	clear(*fs)
	fieldPool.Put(fs)
	err := failed.err
	*failed = writeFailure{}
	failurePool.Put(failed)
	return err
}

// failurePool keeps Write from allocating an error output per record (it
// escapes through the checked entry).
var failurePool = sync.Pool{New: func() any { return new(writeFailure) }}

func (l *Logger) appendFields(fs []zap.Field, r *Record) []zap.Field {
	fs = append(fs,
		zap.String("request_id", r.RequestID),
		zap.String("caller_type", r.CallerType),
		zap.String("caller_id", r.CallerID),
		zap.String("credential", r.Credential),
		zap.String("endpoint", r.Endpoint),
		zap.String("tool", r.Tool),
		zap.String("result", r.Result),
		zap.Int("status", r.Status),
		zap.Int("citations", r.Citations),
		zap.Int("dropped", r.Dropped),
		zap.Duration("duration", l.now().Sub(r.Start)),
	)
	if r.UnsafeURLsDropped > 0 {
		fs = append(fs, zap.Int("unsafe_urls_dropped", r.UnsafeURLsDropped))
	}
	if r.PageNote != "" {
		fs = append(fs, zap.String("page_note", r.PageNote))
	}
	if r.KeyID != "" {
		fs = append(fs, zap.String("key_id", r.KeyID))
	}
	if r.Purpose != "" {
		fs = append(fs, zap.String("purpose", r.Purpose))
	}
	if r.ClientRequestID != "" {
		fs = append(fs, zap.String("client_request_id", r.ClientRequestID))
	}
	if r.TraceID != "" {
		fs = append(fs, zap.String("trace_id", r.TraceID))
	}
	if r.SessionID != "" {
		fs = append(fs, zap.String("session_id", r.SessionID))
	}
	if r.MCPSessionID != "" {
		fs = append(fs, zap.String("mcp_session_id", r.MCPSessionID))
	}
	if r.JSONRPCID != "" {
		fs = append(fs, zap.String("jsonrpc_id", r.JSONRPCID))
	}
	fs = l.appendQuestion(fs, r.question)
	if r.RequestedScope != nil {
		fs = append(fs, zap.Object("requested_scope", (*scopeMarshaler)(r.RequestedScope)))
	}
	if r.EffectiveScope != nil {
		fs = append(fs, zap.Object("effective_scope", (*scopeMarshaler)(r.EffectiveScope)))
	}
	if r.Decision != nil {
		fs = append(fs, zap.Object("decision", (*decisionMarshaler)(r.Decision)))
	}
	if len(r.Datasets) > 0 {
		fs = append(fs, zap.Strings("datasets", r.Datasets))
	}
	if len(r.Backends) > 0 {
		fs = append(fs, zap.Array("backends", (*backendsMarshaler)(&r.Backends)))
	}
	if r.Tokens.Generated() {
		fs = append(fs, zap.Object("tokens", (*tokensMarshaler)(&r.Tokens)))
	}
	return fs
}

func (l *Logger) appendQuestion(fs []zap.Field, q string) []zap.Field {
	if q == "" {
		return fs
	}
	if l.logQuestions {
		return append(fs, zap.String("question", q))
	}
	return append(fs, zap.String("question_sha256", HashQuestion(q)))
}

// The marshalers are pointer types: a pointer fits in an interface
// without an allocation.
type scopeMarshaler protocol.Scope

func (s *scopeMarshaler) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	_ = enc.AddArray("projects", (*stringsArray)(&s.Projects))
	_ = enc.AddArray("paths", (*stringsArray)(&s.Paths))
	enc.AddString("version", s.Version)
	enc.AddBool("include_working_docs", s.IncludeWorkingDocs)
	return nil
}

type stringsArray []string

func (ss *stringsArray) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, s := range *ss {
		enc.AppendString(s)
	}
	return nil
}

type decisionMarshaler Decision

func (d *decisionMarshaler) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddBool("allow", d.Allow)
	if d.Code != "" {
		enc.AddString("code", d.Code)
	}
	if d.Reason != "" {
		enc.AddString("reason", d.Reason)
	}
	enc.AddString("policy_revision", d.Revision)
	if d.Digest != "" {
		enc.AddString("policy_digest", d.Digest)
	}
	if len(d.Rules) > 0 {
		_ = enc.AddArray("rules", zapcore.ArrayMarshalerFunc(func(a zapcore.ArrayEncoder) error {
			for _, r := range d.Rules {
				a.AppendString(r)
			}
			return nil
		}))
	}
	return nil
}

type backendsMarshaler []BackendCall

func (b *backendsMarshaler) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for i := range *b {
		_ = enc.AppendObject((*backendMarshaler)(&(*b)[i]))
	}
	return nil
}

type backendMarshaler BackendCall

func (c *backendMarshaler) MarshalLogObject(o zapcore.ObjectEncoder) error {
	o.AddString("name", c.Name)
	o.AddInt("status", c.Status)
	o.AddFloat64("latency_ms", float64(c.Latency.Microseconds())/1000)
	if c.Error != "" {
		o.AddString("error", c.Error)
	}
	return nil
}
