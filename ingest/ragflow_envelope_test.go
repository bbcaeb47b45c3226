package ingest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRAGFlowClientRefusesWhatTheGateRefuses: the loader reads answers with
// the gate's envelope check (backend.CheckRAGFlow), so an answer that is not
// a successful envelope fails the call, even one whose data ingest does not
// read (setting metadata): G1's code-0 "data: false" auth failure, a body
// without a code and an HTML page served with 200 used to pass as success.
// None of them is retried.
func TestRAGFlowClientRefusesWhatTheGateRefuses(t *testing.T) {
	for _, c := range []struct {
		name, contentType, body string
		want                    string
	}{
		{"G1 auth failure", "application/json", `{"code":0,"data":false,"message":"` + "`Authorization` can't be empty" + `"}`, "authentication failed: `Authorization` can't be empty"},
		{"no code", "application/json", `{"data":null,"message":"ok"}`, "not a RAGFlow envelope (no envelope code)"},
		{"html page", "text/html", `<html><body>Bad gateway</body></html>`, "not a RAGFlow envelope (html body): <html>"},
		{"error code", "application/json", `{"code":102,"message":"Document not found"}`, "ragflow code 102: Document not found"},
	} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.Header().Set("Content-Type", c.contentType)
			w.Write([]byte(c.body))
		}))
		c1 := &RAGFlowClient{URL: srv.URL, Key: "k", Backoff: time.Millisecond}
		err := c1.setMeta(context.Background(), "ds", "doc", map[string]string{"path": "a.md"})
		srv.Close()
		var rf *RAGFlowError
		if !errors.As(err, &rf) || !strings.Contains(err.Error(), c.want) || calls.Load() != 1 {
			t.Errorf("%s: err %v after %d calls, want a RAGFlowError saying %q, not retried", c.name, err, calls.Load(), c.want)
		}
	}
}

// TestRAGFlowClientRetriesAnErrorStatusWithAnEnvelope: a 503 is worth
// another try even when its body is an envelope with a code (RAGFlow 0.26
// answers some error statuses with one); its code is reported.
func TestRAGFlowClientRetriesAnErrorStatusWithAnEnvelope(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"code":100,"message":"busy"}`))
	}))
	defer srv.Close()
	c := &RAGFlowClient{URL: srv.URL, Key: "k", Retries: 2, Backoff: time.Millisecond}
	err := c.setMeta(context.Background(), "ds", "doc", nil)
	var rf *RAGFlowError
	if !errors.As(err, &rf) || rf.Status != 503 || rf.Code != 100 || rf.Message != "busy" || calls.Load() != 3 {
		t.Fatalf("err %v (%+v) after %d calls, want 503 code 100 tried 3 times", err, rf, calls.Load())
	}
}

// TestAnAnswerOverTheLimitFailsTheCall: an answer longer than maxAnswer is
// reported as such and not retried; it used to be cut at the limit and
// decoded, which read as "not a RAGFlow envelope" (or, for an answer whose
// cut still parsed, as a success).
func TestAnAnswerOverTheLimitFailsTheCall(t *testing.T) {
	old := maxAnswer
	maxAnswer = 64
	t.Cleanup(func() { maxAnswer = old })
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Write([]byte(`{"code":0,"data":[]}` + strings.Repeat(" ", 100)))
	}))
	defer srv.Close()
	c := &RAGFlowClient{URL: srv.URL, Key: "k", Backoff: time.Millisecond}
	_, err := c.listDatasets(context.Background())
	if err == nil || !strings.Contains(err.Error(), "answer over 64 bytes") || calls.Load() != 1 {
		t.Fatalf("err %v after %d calls, want the answer over 64 bytes, not retried", err, calls.Load())
	}
}
