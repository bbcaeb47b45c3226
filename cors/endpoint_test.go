package cors

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The MCP endpoint's CORS, exactly as a browser-based MCP client reads it:
// a preflight is 204 with the methods, the MCP request headers and the
// cache time; a call gets its origin back and may read Mcp-Session-Id and
// the challenge; a request without Origin gets no CORS header at all.
func TestEndpointAnswersTheMCPClientsOfAllowedOrigins(t *testing.T) {
	e := NewEndpoint([]string{"POST", "GET", "DELETE"}, []string{"Authorization", "Mcp-Session-Id"},
		[]string{"Mcp-Session-Id", "WWW-Authenticate"}, 10*time.Minute)
	w := httptest.NewRecorder()
	if !e.Handle(w, request(http.MethodOptions, "/mcp", "http://localhost:6274", true)) {
		t.Fatal("preflight not answered")
	}
	want := http.Header{
		"Access-Control-Allow-Origin":   {"http://localhost:6274"},
		"Vary":                          {"Origin"},
		"Access-Control-Expose-Headers": {"Mcp-Session-Id, WWW-Authenticate"},
		"Access-Control-Allow-Methods":  {"POST, GET, DELETE"},
		"Access-Control-Allow-Headers":  {"Authorization, Mcp-Session-Id"},
		"Access-Control-Max-Age":        {"600"},
	}
	if w.Code != http.StatusNoContent || !sameHeader(w.Header(), want) {
		t.Fatalf("preflight: %d %v", w.Code, w.Header())
	}
	w = httptest.NewRecorder()
	if e.Handle(w, request(http.MethodPost, "/mcp", "http://localhost:6274", false)) {
		t.Fatal("a call was answered by CORS")
	}
	if h := w.Header(); h.Get("Access-Control-Allow-Origin") != "http://localhost:6274" || h.Get("Access-Control-Expose-Headers") != "Mcp-Session-Id, WWW-Authenticate" ||
		h.Get("Access-Control-Allow-Methods") != "" {
		t.Fatalf("call: %v", h)
	}
	w = httptest.NewRecorder()
	if e.Handle(w, request(http.MethodOptions, "/mcp", "", false)) || len(w.Header()) != 0 {
		t.Fatalf("no Origin: answered or headers %v", w.Header())
	}
}

func sameHeader(got, want http.Header) bool {
	if len(got) != len(want) {
		return false
	}
	for k, vs := range want {
		if len(got[k]) != len(vs) {
			return false
		}
		for i := range vs {
			if got[k][i] != vs[i] {
				return false
			}
		}
	}
	return true
}
