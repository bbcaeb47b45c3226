package ragflow

import (
	"mime"
	"net/http"
	"testing"
)

// isEventStream's shortcut for RAGFlow's own "text/event-stream" label
// answers as parsing the media type always did.
func TestIsEventStreamMatchesParsing(t *testing.T) {
	parsed := func(ct string) bool {
		mt, _, err := mime.ParseMediaType(ct)
		return err != nil || (mt != "application/json" && mt != "text/html")
	}
	for _, ct := range []string{"", "text/event-stream", "text/event-stream; charset=utf-8", "text/event-stream;charset=utf-8",
		"text/event-stream;", "text/event-stream;;", "text/event-stream; a", "text/event-streamx", "text/event-stream ",
		"TEXT/EVENT-STREAM", "application/json", "application/json; charset=utf-8", "text/html", "Text/HTML; charset=x",
		"text/event-stream, application/json", "application/json;text/event-stream", " application/json"} {
		resp := &http.Response{Header: http.Header{}}
		if ct != "" {
			resp.Header.Set("Content-Type", ct)
		}
		if got, want := isEventStream(resp), parsed(ct); got != want {
			t.Errorf("isEventStream(%q) = %v, want %v", ct, got, want)
		}
	}
}

// A stream whose response ends right after its terminator (the common
// case, where the reader sees the body's end and has nothing to drain)
// also leaves its connection for the next call.
func TestStreamEndingWithTerminatorReusesConnection(t *testing.T) {
	url, dials := dialCountingServer(t, slowStream(streamEvents(t), 0))
	c := newTestClient(t, url)
	for range 5 {
		comp, err := c.Complete(t.Context(), askMsgs, true)
		if err != nil {
			t.Fatal(err)
		}
		if comp.Answer == "" {
			t.Fatal("empty answer")
		}
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("5 streamed generations opened %d connections, want 1", n)
	}
}
