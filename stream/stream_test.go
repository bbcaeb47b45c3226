package stream

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

// lockedRecorder lets the test read what the keep-alive goroutine wrote.
type lockedRecorder struct {
	mu sync.Mutex
	*httptest.ResponseRecorder
}

func (r *lockedRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ResponseRecorder.Write(p)
}

func (r *lockedRecorder) body() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Body.String()
}

func TestWriterFramesEventsAndStartsOnTheFirst(t *testing.T) {
	rec := httptest.NewRecorder()
	w := NewWriter(rec, time.Hour)
	if w.Started() {
		t.Fatal("started before any event")
	}
	_ = w.Send(EventStatus, StatusOf("3 chunks in scope"))
	_ = w.Send(EventDelta, Delta{Text: "a <b> & [1]"})
	_ = w.Send(EventDone, Done{})
	w.Close()
	want := "event: status\nid: 1\ndata: {\"stage\":\"in_scope\",\"chunks\":3,\"message\":\"3 chunks in scope\"}\n\n" +
		"event: delta\nid: 2\ndata: {\"text\":\"a <b> & [1]\"}\n\n" +
		"event: done\nid: 3\ndata: {}\n\n"
	if got := rec.Body.String(); got != want {
		t.Fatalf("frames:\n%q\nwant\n%q", got, want)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream; charset=utf-8" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("headers %v", rec.Header())
	}
	if !rec.Flushed {
		t.Fatal("events were not flushed")
	}
	if err := w.Send(EventDone, Done{}); err == nil {
		t.Fatal("a closed writer wrote")
	}
}

func TestWriterKeepsASilentStreamAlive(t *testing.T) {
	rec := &lockedRecorder{ResponseRecorder: httptest.NewRecorder()}
	w := NewWriter(rec, 20*time.Millisecond)
	_ = w.Send(EventStatus, StatusOf(StageGenerating))
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(rec.body(), keepAliveComment) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	w.Close()
	got := rec.body()
	if strings.Count(got, ": keep-alive\n\n") < 2 || !strings.HasPrefix(got, "event: status\n") {
		t.Fatalf("no keep-alive comments during silence: %q", got)
	}
	time.Sleep(60 * time.Millisecond)
	if rec.body() != got {
		t.Fatal("the writer wrote after Close")
	}
}

func TestNoKeepAliveBeforeTheStreamStarts(t *testing.T) {
	rec := &lockedRecorder{ResponseRecorder: httptest.NewRecorder()}
	w := NewWriter(rec, 5*time.Millisecond)
	time.Sleep(30 * time.Millisecond)
	w.Close()
	if rec.body() != "" || w.Started() {
		t.Fatalf("a refused call must be free to answer JSON: %q", rec.body())
	}
}

func TestLimiterPerCaller(t *testing.T) {
	l := NewLimiter(2, 100)
	r1, err1 := l.Acquire("agent:a")
	_, err2 := l.Acquire("agent:a")
	_, err3 := l.Acquire("agent:a")
	_, errOther := l.Acquire("agent:b")
	if err1 != nil || err2 != nil || err3 != ErrCallerFull || errOther != nil {
		t.Fatalf("acquire: %v %v %v %v", err1, err2, err3, errOther)
	}
	r1()
	r1() // a second release gives nothing back twice
	if l.Open("agent:a") != 1 || l.Total() != 2 {
		t.Fatalf("open after release: %d, total %d", l.Open("agent:a"), l.Total())
	}
	if _, err := l.Acquire("agent:a"); err != nil {
		t.Fatal("a released slot was not given back")
	}
	if _, err := l.Acquire("agent:a"); err != ErrCallerFull {
		t.Fatalf("past the limit after a double release: %v", err)
	}
}

func TestLimiterPerProcess(t *testing.T) {
	l := NewLimiter(2, 3)
	var releases []func()
	for _, caller := range []string{"anonymous:10.0.0.1", "anonymous:10.0.0.2", "human:ann"} {
		r, err := l.Acquire(caller)
		if err != nil {
			t.Fatalf("%s: %v", caller, err)
		}
		releases = append(releases, r)
	}
	if _, err := l.Acquire("anonymous:10.0.0.4"); err != ErrGateFull {
		t.Fatalf("a fourth stream on a gate of three: %v", err)
	}
	if _, err := l.Acquire("anonymous:10.0.0.4"); err != ErrGateFull || l.Total() != 3 {
		t.Fatalf("a refused stream took a slot: %v, total %d", err, l.Total())
	}
	releases[0]()
	if _, err := l.Acquire("anonymous:10.0.0.4"); err != nil || l.Total() != 3 {
		t.Fatalf("after one ended: %v, total %d", err, l.Total())
	}
}

func TestWants(t *testing.T) {
	cases := map[string]bool{
		"":                                    false,
		"*/*":                                 false,
		"application/json":                    false,
		"text/event-stream":                   true,
		"application/json, text/event-stream": true,
		"TEXT/EVENT-STREAM; charset=utf-8":    true,
		"text/event-stream;q=0":               false,
		"text/event-stream;q=0.0":             false,
		"text/event-stream;q=0.1, application/json":            false,
		"text/event-stream;q=0.5, */*":                         false,
		"text/event-stream, application/json;q=0.9":            true,
		"text/event-stream;q=0.5, application/json;q=0.2, */*": true, // the specific range wins over */*
		"text/event-stream;q=0.5, application/*;q=0.8":         false,
		"application/json;q=0.5, text/event-stream;q=0.5":      true,
		"text/event-stream;q=banana":                           false,
	}
	for accept, want := range cases {
		r, _ := http.NewRequest(http.MethodPost, "/answer/ask", nil)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if got := Wants(r); got != want {
			t.Errorf("Accept %q: %v, want %v", accept, got, want)
		}
	}
}

func TestStatusOf(t *testing.T) {
	if s := StatusOf("retrieving"); s.Stage != StageRetrieving || s.Chunks != nil {
		t.Errorf("%+v", s)
	}
	if s := StatusOf("0 chunks in scope"); s.Stage != StageInScope || s.Chunks == nil || *s.Chunks != 0 {
		t.Errorf("%+v", s)
	}
}

func TestCitationsEventKeepsAnEmptyList(t *testing.T) {
	rec := httptest.NewRecorder()
	w := NewWriter(rec, time.Hour)
	_ = w.Send(EventCitations, Citations{Citations: []protocol.Citation{}, Final: true})
	w.Close()
	if !strings.Contains(rec.Body.String(), `data: {"citations":[],"final":true}`) {
		t.Fatalf("%q", rec.Body.String())
	}
}
