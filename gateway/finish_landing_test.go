package gateway

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/wikigate/wikigate/audit"
)

// refusingFile is an audit file whose writes fail.
type refusingFile struct{}

func (refusingFile) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }
func (refusingFile) Sync() error               { return nil }

// Every door's record goes through finish, which reports a record its
// writers refused on the call's audit.Landing (what the sync mode's held
// answer reads): a tool route's call and an unknown route's alike.
func TestFinishReportsARecordThatDidNotLand(t *testing.T) {
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), refusingFile{}, zapcore.InfoLevel)
	logger := audit.NewLogger(zap.New(core, zap.ErrorOutput(zapcore.AddSync(refusingFile{}))), false)
	g, err := New(Config{}, Deps{Auth: jwksAuth(nil), Policy: fixedRevision{}, Search: slowOK(0), Answers: slowOK(0), Audit: logger})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/agent/tools/search", "/no/such/route"} {
		ctx, landing := audit.WithLanding(t.Context())
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, path, strings.NewReader(`{"question":"q"}`))
		g.ServeHTTP(httptest.NewRecorder(), r)
		if !errors.Is(landing.Err(), audit.ErrRecordNotWritten) {
			t.Errorf("%s: landing %v, want the refused record reported", path, landing.Err())
		}
	}
}
