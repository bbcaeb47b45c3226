package ragflow

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wikigate/wikigate/backend"
)

// streamEvents splits the recorded stream into its events.
func streamEvents(t *testing.T) []string {
	stream := string(fixture(t, "derived/completion.stream.sse"))
	var out []string
	for ev := range strings.SplitSeq(stream, "\n\n") {
		if strings.TrimSpace(ev) != "" {
			out = append(out, ev+"\n\n")
		}
	}
	return out
}

// slowStream writes each event after gap, flushing each.
func slowStream(events []string, gap time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		for _, ev := range events {
			select {
			case <-time.After(gap):
			case <-r.Context().Done():
				return
			}
			_, _ = w.Write([]byte(ev))
			w.(http.Flusher).Flush()
		}
	}
}

func TestRetrievalHasItsOwnShortTimeout(t *testing.T) {
	f := serveFunc(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	c := newTestClient(t, f.URL, func(cfg *Config) { cfg.RetrievalTimeout = 50 * time.Millisecond })
	_, err := c.Retrieve(t.Context(), kgentParams)
	e := asError(t, err, Timeout)
	assertProtocolError(t, e)
}

func TestGenerationKeepsGoingWhileItStreams(t *testing.T) {
	events := streamEvents(t)
	if len(events) < 4 {
		t.Fatalf("fixture has %d events, want several", len(events))
	}
	// Each gap is under the idle bound, the whole stream well over it.
	f := serveFunc(t, slowStream(events, 40*time.Millisecond))
	c := newTestClient(t, f.URL, func(cfg *Config) {
		cfg.FirstByteTimeout, cfg.IdleTimeout = 150*time.Millisecond, 150*time.Millisecond
	})
	comp, err := c.Complete(t.Context(), askMsgs, true)
	if err != nil || comp.Answer == "" {
		t.Fatalf("a stream that keeps coming must be read to its end: %+v, %v", comp, err)
	}
}

func TestGenerationWithoutFirstByteTimesOut(t *testing.T) {
	f := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		w.WriteHeader(200)
		w.(http.Flusher).Flush() // headers, but no event
		<-r.Context().Done()
	})
	c := newTestClient(t, f.URL, func(cfg *Config) { cfg.FirstByteTimeout = 50 * time.Millisecond })
	_, err := c.Complete(t.Context(), askMsgs, true)
	e := asError(t, err, Timeout)
	if errors.Is(err, context.Canceled) {
		t.Errorf("a stalled backend must not read as the caller going away: %v", e)
	}
}

func TestGenerationSilentMidStreamTimesOut(t *testing.T) {
	events := streamEvents(t)
	f := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		_, _ = w.Write([]byte(events[0]))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newTestClient(t, f.URL, func(cfg *Config) { cfg.IdleTimeout = 50 * time.Millisecond })
	_, err := c.Complete(t.Context(), askMsgs, true)
	asError(t, err, Timeout)
	if errors.Is(err, context.Canceled) {
		t.Errorf("a stalled backend must not read as the caller going away: %v", err)
	}
}

func TestCallerGoneIsNotATimeout(t *testing.T) {
	f := serveFunc(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	c := newTestClient(t, f.URL)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	_, err := c.Complete(ctx, askMsgs, true)
	asError(t, err, Unreachable)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a caller that went away must stay visible as context.Canceled: %v", err)
	}
}

func TestRequestIDIsSent(t *testing.T) {
	got := make(chan string, 4)
	f := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("X-Request-Id")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(fixture(t, "retrieval.response.json"))
	})
	c := newTestClient(t, f.URL)
	ctx := backend.WithRequestID(t.Context(), "req-123")
	_, _ = c.Retrieve(ctx, kgentParams)
	_, _ = c.Complete(ctx, askMsgs, false)
	for _, call := range []string{"retrieval", "completion"} {
		if id := <-got; id != "req-123" {
			t.Errorf("%s sent X-Request-Id %q, want req-123", call, id)
		}
	}
}

// dialCountingServer serves h on a test server and counts the connections
// clients open to it.
func dialCountingServer(t *testing.T, h http.Handler) (string, *atomic.Int32) {
	dials := new(atomic.Int32)
	f := httptest.NewUnstartedServer(h)
	f.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	f.Start()
	t.Cleanup(f.Close)
	return f.URL, dials
}

// A stream read to its terminator leaves its connection for the next
// call: the client reads the rest of the response (the chunked body's end)
// instead of closing it early, which made every generation dial anew.
func TestStreamConnectionIsReused(t *testing.T) {
	events := streamEvents(t)
	url, dials := dialCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slowStream(events, 0)(w, r)
		time.Sleep(20 * time.Millisecond) // the response's end comes after the terminator
	}))
	c := newTestClient(t, url)
	for range 3 {
		if _, err := c.Complete(t.Context(), askMsgs, true); err != nil {
			t.Fatal(err)
		}
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("3 streamed generations opened %d connections, want 1", n)
	}
}

// A server that holds the response open after the terminator costs the
// answer at most drainWait, never the idle timeout, and the answer is
// the one the stream gave.
func TestStreamHeldOpenAfterTerminator(t *testing.T) {
	events := streamEvents(t)
	f := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		slowStream(events, 0)(w, r)
		<-r.Context().Done() // never ends the response
	})
	c := newTestClient(t, f.URL, func(cfg *Config) { cfg.IdleTimeout = 10 * time.Second })
	start := time.Now()
	comp, err := c.Complete(t.Context(), askMsgs, true)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > drainWait+2*time.Second {
		t.Errorf("the answer took %v with the response held open, want about %v", took, drainWait)
	}
	if comp.Answer == "" {
		t.Error("empty answer")
	}
}
