package audit

import (
	"context"
	"errors"
	"sync"

	"go.uber.org/zap/zapcore"
)

// ErrRecordNotWritten is a call's record that its writers refused.
var ErrRecordNotWritten = errors.New("audit: the call's record was not written")

// writeFailure is the error output of one record's write: zap reports a
// writer's failure there (and nowhere the caller could read it), so Write
// puts one in the checked entry, keeps that the write failed, and passes
// the message on to the logger's own error output.
type writeFailure struct {
	next zapcore.WriteSyncer
	err  error
}

func (f *writeFailure) Write(p []byte) (int, error) {
	f.err = ErrRecordNotWritten
	if f.next != nil {
		return f.next.Write(p)
	}
	return len(p), nil
}

func (f *writeFailure) Sync() error {
	if f.next != nil {
		return f.next.Sync()
	}
	return nil
}

// Landing tells the code that answers a call whether the call's record
// was written. With an audit file in the sync mode the answer is held
// until the record lands (docs/security.md, The audit file); a record that
// failed to land must not let the held answer out as if it had: the
// caller gets 503 audit_unavailable instead, and nothing acknowledged is
// missing from the file.
type Landing struct {
	mu  sync.Mutex
	err error
}

type landingKey struct{}

// WithLanding returns ctx carrying a new Landing for one call.
func WithLanding(ctx context.Context) (context.Context, *Landing) {
	l := new(Landing)
	return context.WithValue(ctx, landingKey{}, l), l
}

// ReportLanding records err (a failed record write) on ctx's Landing, if
// it has one; a nil err records nothing.
func ReportLanding(ctx context.Context, err error) {
	if err == nil {
		return
	}
	if l, ok := ctx.Value(landingKey{}).(*Landing); ok {
		l.mu.Lock()
		if l.err == nil {
			l.err = err
		}
		l.mu.Unlock()
	}
}

// Err is the first failure reported, or nil when every record landed.
func (l *Landing) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
