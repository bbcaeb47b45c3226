package meili

import (
	"testing"

	"github.com/wikigate/wikigate/backend"
)

func TestRequestIDIsSent(t *testing.T) {
	f := serveMeili(t, answer(200, []byte(`{"status":"available"}`)))
	c := newTestClient(t, f.URL)
	_ = c.Health(backend.WithRequestID(t.Context(), "req-123"))
	_ = c.Health(t.Context())
	seen := f.requests()
	if len(seen) != 2 {
		t.Fatalf("%d requests, want 2", len(seen))
	}
	if id := seen[0].Header.Get("X-Request-Id"); id != "req-123" {
		t.Errorf("X-Request-Id %q, want req-123", id)
	}
	if _, sent := seen[1].Header["X-Request-Id"]; sent {
		t.Errorf("a call without a request id sent an X-Request-Id header")
	}
}
