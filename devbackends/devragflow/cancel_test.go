package devragflow

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// streamRequest posts the gate's prompt to a running server, asking for
// the stream; the caller reads and closes the body.
func streamRequest(t *testing.T, ctx context.Context, url string) *http.Response {
	t.Helper()
	raw, _ := json.Marshal(userMessage(gatePrompt))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/v1/chat/completions", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// lastCompletion waits for the completion's log entry (written when its
// handler returns).
func lastCompletion(t *testing.T, s *Server) LoggedRequest {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range s.Requests() {
			if r.Path == "/api/v1/chat/completions" {
				return r
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the completion was never logged")
	return LoggedRequest{}
}

func TestPacedStreamStopsAndIsLoggedCancelledWhenTheClientLeaves(t *testing.T) {
	t.Setenv(DeltaPauseEnv, "200ms")
	s := newTestServer(t)
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	resp := streamRequest(t, ctx, srv.URL)
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `data:{"code": 0`) {
		t.Fatalf("first event %q: %v", line, err)
	}
	cancel() // the reader hangs up after the first delta
	resp.Body.Close()
	rec := lastCompletion(t, s)
	if !rec.Cancelled || rec.Status != http.StatusOK {
		t.Fatalf("log entry of a completion whose client left: %+v", rec)
	}
	raw, _ := json.Marshal(rec)
	if !strings.Contains(string(raw), `"cancelled":true`) {
		t.Fatalf("the log does not say cancelled: %s", raw)
	}
}

func TestPacedStreamThatEndsIsNotCancelled(t *testing.T) {
	t.Setenv(DeltaPauseEnv, "1ms")
	s := newTestServer(t)
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp := streamRequest(t, context.Background(), srv.URL)
	events := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data:") {
			events++
		}
	}
	resp.Body.Close()
	rec := lastCompletion(t, s)
	if rec.Cancelled || events < 3 {
		t.Fatalf("a completed stream (%d events) logged as %+v", events, rec)
	}
	raw, _ := json.Marshal(rec)
	if strings.Contains(string(raw), "cancelled") {
		t.Fatalf("a completed stream names cancelled: %s", raw)
	}
}

func TestDeltaPauseIsBounded(t *testing.T) {
	for value, want := range map[string]time.Duration{"": 0, "nonsense": 0, "-1s": 0, "30ms": 30 * time.Millisecond, "1h": maxDeltaPause} {
		t.Setenv(DeltaPauseEnv, value)
		if got := deltaPause(); got != want {
			t.Errorf("%s=%q: pause %v, want %v", DeltaPauseEnv, value, got, want)
		}
	}
}
