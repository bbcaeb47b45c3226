package integration

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// resumeStream sends GET on a stream's resume URL with Last-Event-ID.
func (g *gate) resumeStream(ctx context.Context, url string, headers map[string]string, last string) *http.Response {
	g.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.url+url, nil)
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		g.t.Fatalf("resume %s: %v", url, err)
	}
	return resp
}

// TestStreamResumesWithLastEventID (issue 24 point 2): a reader that lost
// the stream after event 4 reads events 5.. from the URL the stream named,
// while the backend is still generating and after the end, byte for byte
// what the stream sent, and the backend generated once. Another caller,
// an unknown stream and a stream past its window are 404 not_found.
func TestStreamResumesWithLastEventID(t *testing.T) {
	rag := startHeldRAGFlow(t)
	g := startGate(t, gateOptions{ragflowURL: rag.url, ragflowExtra: "idle_timeout 30s", extraOptions: "streaming {\n resume_window 2s\n}"})
	owner := bearer(agentToken(t, "kunora-coding-agent"))
	release := rag.setHold(true)
	resp := g.streamAsk(t.Context(), "/agent/tools/ask", owner, `{"question":"memory"}`)
	defer resp.Body.Close()
	url := resp.Header.Get("Wikigate-Stream-Url")
	if !strings.HasPrefix(url, "/answer/streams/") {
		t.Fatalf("the stream names no resume URL: %v", resp.Header)
	}
	evs := make(chan gateEvent, 64)
	go func() {
		defer close(evs)
		readEvents(t, resp.Body, func(ev gateEvent) bool { evs <- ev; return true })
	}()
	first := eventsUntilDelta(evs, 10*time.Second) // event 5, while the backend still waits
	if len(first) != 5 || first[4].name != "delta" {
		t.Fatalf("before the backend's last chunk: %v", names(first))
	}
	// A second reader resumes after event 4 while the backend still waits.
	live := make(chan []gateEvent, 1)
	rr := g.resumeStream(t.Context(), url, owner, "4")
	defer rr.Body.Close()
	if rr.StatusCode != 200 {
		body, _ := io.ReadAll(rr.Body)
		t.Fatalf("resume: %d %s", rr.StatusCode, body)
	}
	go func() { live <- readEvents(t, rr.Body, nil) }()
	close(release)
	all := first
	for ev := range evs {
		all = append(all, ev)
	}
	var resumed []gateEvent
	select {
	case resumed = <-live:
	case <-time.After(10 * time.Second):
		t.Fatal("the resumed reader did not reach the end")
	}
	if len(all) < 6 || !sameEvents(resumed, all[4:]) {
		t.Fatalf("resumed after 4: %v\nthe stream: %v", names(resumed), names(all))
	}
	// After the end, within the window: the tail again, no new generation.
	after := g.resumeStream(t.Context(), url, owner, all[len(all)-3].id)
	tail := readEvents(t, after.Body, nil)
	after.Body.Close()
	if !sameEvents(tail, all[len(all)-2:]) {
		t.Errorf("resume after the end: %v", names(tail))
	}
	if n := rag.completions.Load(); n != 1 {
		t.Errorf("%d generations for one stream and two resumes", n)
	}
	other := g.resumeStream(t.Context(), url, bearer(agentToken(t, "docs-maintainer-agent")), "4")
	checkResumeRefused(t, "another caller", other, 404, "not_found")
	checkResumeRefused(t, "an unknown stream", g.resumeStream(t.Context(), "/answer/streams/0123456789abcdef0123456789abcdef", owner, "1"), 404, "not_found")
	checkResumeRefused(t, "an id past the stream", g.resumeStream(t.Context(), url, owner, "99"), 400, "invalid_request")
	waitFor(t, "the resume window to pass", func() bool {
		r := g.resumeStream(t.Context(), url, owner, "1")
		defer r.Body.Close()
		return r.StatusCode == 404
	})
}

func sameEvents(a, b []gateEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func checkResumeRefused(t *testing.T, who string, resp *http.Response, status int, code string) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r := response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if r.Status != status || r.errorCode(t) != code {
		t.Errorf("%s: %d %s", who, r.Status, body)
	}
}
