package audit

import (
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

// Write emits r as one info-level line.
func (l *Logger) Write(r *Record) {
	ce := l.z.Check(zapcore.InfoLevel, "wikigate call")
	if ce == nil {
		return
	}
	ce.Write(l.fields(r)...)
}

func (l *Logger) fields(r *Record) []zap.Field {
	fs := []zap.Field{
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
	if r.SessionID != "" {
		fs = append(fs, zap.String("session_id", r.SessionID))
	}
	if r.MCPSessionID != "" {
		fs = append(fs, zap.String("mcp_session_id", r.MCPSessionID))
	}
	if r.JSONRPCID != "" {
		fs = append(fs, zap.String("jsonrpc_id", r.JSONRPCID))
	}
	fs = append(fs, l.questionField(r.question)...)
	fs = append(fs, scopeField("requested_scope", r.RequestedScope), scopeField("effective_scope", r.EffectiveScope))
	if r.Decision != nil {
		fs = append(fs, zap.Object("decision", decisionMarshaler(*r.Decision)))
	}
	if len(r.Datasets) > 0 {
		fs = append(fs, zap.Strings("datasets", r.Datasets))
	}
	if len(r.Backends) > 0 {
		fs = append(fs, zap.Array("backends", backendsMarshaler(r.Backends)))
	}
	return fs
}

func (l *Logger) questionField(q string) []zap.Field {
	if q == "" {
		return nil
	}
	if l.logQuestions {
		return []zap.Field{zap.String("question", q)}
	}
	return []zap.Field{zap.String("question_sha256", HashQuestion(q))}
}

func scopeField(key string, s *protocol.Scope) zap.Field {
	if s == nil {
		return zap.Skip()
	}
	return zap.Object(key, scopeMarshaler(*s))
}

type scopeMarshaler protocol.Scope

func (s scopeMarshaler) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	_ = enc.AddArray("projects", zapcore.ArrayMarshalerFunc(stringsArray(s.Projects)))
	_ = enc.AddArray("paths", zapcore.ArrayMarshalerFunc(stringsArray(s.Paths)))
	enc.AddString("version", s.Version)
	enc.AddBool("include_working_docs", s.IncludeWorkingDocs)
	return nil
}

func stringsArray(ss []string) func(zapcore.ArrayEncoder) error {
	return func(enc zapcore.ArrayEncoder) error {
		for _, s := range ss {
			enc.AppendString(s)
		}
		return nil
	}
}

type decisionMarshaler Decision

func (d decisionMarshaler) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddBool("allow", d.Allow)
	if d.Code != "" {
		enc.AddString("code", d.Code)
	}
	if d.Reason != "" {
		enc.AddString("reason", d.Reason)
	}
	enc.AddString("policy_revision", d.Revision)
	return nil
}

type backendsMarshaler []BackendCall

func (b backendsMarshaler) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, c := range b {
		_ = enc.AppendObject(zapcore.ObjectMarshalerFunc(func(o zapcore.ObjectEncoder) error {
			o.AddString("name", c.Name)
			o.AddInt("status", c.Status)
			o.AddFloat64("latency_ms", float64(c.Latency.Microseconds())/1000)
			if c.Error != "" {
				o.AddString("error", c.Error)
			}
			return nil
		}))
	}
	return nil
}
