package caddymodule

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/wikigate/wikigate/audit"
)

// With the audit file in the sync mode, a call whose record did not land
// (the gateway reports the failed write on the call's Landing) is not
// answered as if it had been recorded: the held 200 becomes 503
// audit_unavailable, with the call's request id. A call whose record
// landed is answered unchanged.
func TestHeldAnswerBecomes503WhenItsRecordDidNotLand(t *testing.T) {
	cf, err := audit.OpenChainFile(filepath.Join(t.TempDir(), "audit.log"), audit.BatchOptions{Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	answer := func(recordErr error) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Request-Id", "req-1")
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "11")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, `{"hits":[]}`)
			audit.ReportLanding(r.Context(), recordErr) // the gateway's finish
		})
	}

	rec := httptest.NewRecorder()
	serveAudited(answer(nil), rec, httptest.NewRequest(http.MethodPost, "/agent/tools/search", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != `{"hits":[]}` {
		t.Fatalf("record landed: %d %q, want the answer", rec.Code, rec.Body)
	}

	rec = httptest.NewRecorder()
	serveAudited(answer(audit.ErrNotLanded), rec, httptest.NewRequest(http.MethodPost, "/agent/tools/search", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("record not landed: status %d, want 503 (body %q)", rec.Code, rec.Body)
	}
	var body struct {
		Error struct{ Code, Message, RequestID string }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	if body.Error.Code != "audit_unavailable" || body.Error.RequestID != "req-1" {
		t.Errorf("error body %+v, want audit_unavailable with the request id", body.Error)
	}
	if got := rec.Header().Get("Content-Length"); got == "11" {
		t.Error("the held answer's Content-Length went out with the refusal")
	}
	if rec.Header().Get("Retry-After") == "" {
		t.Error("no Retry-After on the 503")
	}
}

// A Landing keeps what finish reported: nothing for a landed record, the
// failure for a lost one.
func TestLandingKeepsTheFirstReportedFailure(t *testing.T) {
	ctx, landing := audit.WithLanding(t.Context())
	audit.ReportLanding(ctx, nil)
	if landing.Err() != nil {
		t.Fatal("a nil error was recorded")
	}
	audit.ReportLanding(ctx, errors.New("disk full"))
	if landing.Err() == nil {
		t.Fatal("the failure was not recorded")
	}
}
