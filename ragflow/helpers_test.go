package ragflow

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

const testKey = "ragflow-testkey0123456789abcdefghijklmnopqrstuvwxyz0"

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recorded is what the fake RAGFlow saw of one request.
type recorded struct {
	Method, Path, Auth string
	Body               map[string]any
}

// fakeRAGFlow serves one canned reply to every request and records them.
type fakeRAGFlow struct {
	*httptest.Server
	mu   sync.Mutex
	seen []recorded
}

func (f *fakeRAGFlow) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.seen...)
}

// serveReply starts a fake answering status, contentType and body.
func serveReply(t *testing.T, status int, contentType string, body []byte) *fakeRAGFlow {
	t.Helper()
	return serveFunc(t, func(w http.ResponseWriter, _ *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

func serveFunc(t *testing.T, h http.HandlerFunc) *fakeRAGFlow {
	t.Helper()
	f := &fakeRAGFlow{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := recorded{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization")}
		if b, _ := io.ReadAll(r.Body); len(b) > 0 {
			if err := json.Unmarshal(b, &rec.Body); err != nil {
				t.Errorf("request body is not a JSON object: %v", err)
			}
		}
		f.mu.Lock()
		f.seen = append(f.seen, rec)
		f.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func newTestClient(t *testing.T, url string, tweak ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{URL: url, APIKey: testKey}
	for _, f := range tweak {
		f(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// asError asserts err is an *Error of kind.
func asError(t *testing.T, err error, kind ErrorKind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *ragflow.Error", err, err)
	}
	if e.Kind != kind {
		t.Fatalf("kind = %v, want %v (%v)", e.Kind, kind, e)
	}
	return e
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
