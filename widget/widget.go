// Package widget serves the <wikigate-ask> web component and its demo page
// (README "On a docs site"). Both are embedded in the binary: a docs site
// loads the component from the gate it talks to, so the two never drift.
package widget

import (
	"embed"
	"net/http"
)

//go:embed assets/wikigate-ask.js assets/demo.html
var assets embed.FS

// ScriptPath is where the component is served. The version is in the path
// so the file can be cached for a year: a change that breaks embedders gets
// a new path, and fixes ship with a new binary under the same one.
const ScriptPath = "/answer/widget/v1/wikigate-ask.js"

// DemoPath is the demo page (served only when Handler.Demo is set).
const DemoPath = "/demo/"

// Handler serves the component, and the demo page when Demo is set.
type Handler struct {
	Demo bool
}

// Serve answers the widget's paths and reports whether it did; every other
// request is left to the gate.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request) bool {
	if h == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	switch {
	case r.URL.Path == ScriptPath:
		serveScript(w, r)
	case h.Demo && r.URL.Path == DemoPath:
		serveDemo(w, r)
	case h.Demo && r.URL.Path == "/demo":
		http.Redirect(w, r, DemoPath, http.StatusMovedPermanently)
	default:
		return false
	}
	return true
}

func serveScript(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("X-Content-Type-Options", "nosniff")
	// A module script from another origin is fetched in CORS mode. The file
	// is public and sent without credentials, so any docs site may load it,
	// whatever the cors block allows for the API routes.
	h.Set("Access-Control-Allow-Origin", "*")
	write(w, r, "assets/wikigate-ask.js")
}

func serveDemo(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	// The component builds its DOM with textContent only and loads nothing
	// from elsewhere; the policy makes a regression there fail loudly.
	h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'")
	write(w, r, "assets/demo.html")
}

func write(w http.ResponseWriter, r *http.Request, name string) {
	b, err := assets.ReadFile(name)
	if err != nil { // embedded at build time: cannot happen
		http.Error(w, "widget asset missing", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
}
