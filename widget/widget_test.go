package widget

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func get(h *Handler, method, path string) (*httptest.ResponseRecorder, bool) {
	w := httptest.NewRecorder()
	served := h.Serve(w, httptest.NewRequest(method, path, nil))
	return w, served
}

// The component is served at its versioned path as a JavaScript module any
// origin may load, cached for a day and revalidated by its ETag; HEAD gets
// the headers only.
func TestScript(t *testing.T) {
	w, served := get(&Handler{}, http.MethodGet, ScriptPath)
	if !served || w.Code != 200 || !strings.Contains(w.Body.String(), `customElements.define("wikigate-ask"`) {
		t.Fatalf("served %v, %d", served, w.Code)
	}
	want := map[string]string{
		"Content-Type":                "text/javascript; charset=utf-8",
		"Cache-Control":               "public, max-age=86400, stale-while-revalidate=604800",
		"Access-Control-Allow-Origin": "*",
	}
	for k, v := range want {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if w, _ := get(&Handler{}, http.MethodHead, ScriptPath); w.Body.Len() != 0 || w.Code != 200 {
		t.Errorf("HEAD: %d with %d bytes", w.Code, w.Body.Len())
	}
	etag := w.Header().Get("ETag")
	if len(etag) < 10 || etag[0] != '"' {
		t.Fatalf("ETag %q", etag)
	}
	r := httptest.NewRequest(http.MethodGet, ScriptPath, nil)
	r.Header.Set("If-None-Match", etag)
	again := httptest.NewRecorder()
	(&Handler{}).Serve(again, r)
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Fatalf("revalidation with the ETag: %d with %d bytes", again.Code, again.Body.Len())
	}
}

// Without the widget block (a nil handler), without `demo on`, and for
// other paths, requests are left to the gate (its JSON errors).
func TestLeftToTheGate(t *testing.T) {
	cases := []struct {
		h            *Handler
		method, path string
	}{
		{nil, http.MethodGet, ScriptPath},
		{&Handler{}, http.MethodGet, DemoPath},
		{&Handler{Demo: true}, http.MethodGet, "/answer/widget/v2/wikigate-ask.js"},
	}
	for _, c := range cases {
		if _, served := get(c.h, c.method, c.path); served {
			t.Errorf("%v %s %s was served", c.h, c.method, c.path)
		}
	}
}

// The demo page embeds the component from the gate's own path.
func TestDemo(t *testing.T) {
	w, served := get(&Handler{Demo: true}, http.MethodGet, DemoPath)
	if !served || w.Code != 200 || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("served %v, %d %q", served, w.Code, w.Header().Get("Content-Type"))
	}
	if !strings.Contains(w.Body.String(), `src="`+ScriptPath+`"`) || !strings.Contains(w.Body.String(), "<wikigate-ask") {
		t.Fatal("the demo page does not embed the component")
	}
	if w, _ := get(&Handler{Demo: true}, http.MethodGet, "/demo"); w.Code != http.StatusMovedPermanently {
		t.Fatalf("/demo: %d", w.Code)
	}
}

// Another method on the widget's paths is 405 naming GET and HEAD, not the
// gate's "no such route".
func TestOtherMethodsAreNotAllowed(t *testing.T) {
	for _, path := range []string{ScriptPath, DemoPath, "/demo"} {
		w, served := get(&Handler{Demo: true}, http.MethodPost, path)
		if !served || w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("POST %s: served %v, %d, Allow %q", path, served, w.Code, w.Header().Get("Allow"))
		}
	}
	if _, served := get(&Handler{}, http.MethodPost, DemoPath); served {
		t.Error("without demo on, POST /demo/ was answered by the widget")
	}
}
