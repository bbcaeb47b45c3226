package audit

import (
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// failingSink is an audit file whose writes fail (a full disk, a batch
// that did not land in the sync wait).
type failingSink struct{ fail bool }

func (f *failingSink) Write(p []byte) (int, error) {
	if f.fail {
		return 0, errors.New("no space left on device")
	}
	return len(p), nil
}
func (f *failingSink) Sync() error { return nil }

// Write returns an error exactly when the line's writer failed: zap only
// prints such a failure on its error output, and the sync mode must not
// answer a call whose record was lost.
func TestWriteReturnsTheWritersFailure(t *testing.T) {
	sink := &failingSink{}
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), sink, zapcore.InfoLevel)
	l := NewLogger(zap.New(core, zap.ErrorOutput(zapcore.AddSync(&failingSink{}))), false)
	r := New("req-1", "/agent/tools/search", time.Now())
	if err := l.Write(r); err != nil {
		t.Fatalf("a landed record: %v", err)
	}
	sink.fail = true
	if err := l.Write(r); !errors.Is(err, ErrRecordNotWritten) {
		t.Fatalf("a refused record: %v, want ErrRecordNotWritten", err)
	}
	sink.fail = false
	if err := l.Write(r); err != nil {
		t.Fatalf("the next landed record: %v", err)
	}
}
