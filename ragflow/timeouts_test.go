package ragflow

import (
	"context"
	"errors"
	"net/http"
	"strings"
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
