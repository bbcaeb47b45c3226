// Package widget serves the <wikigate-ask> web component and its demo page
// (docs/docs-sites.md "The widget"). Both are embedded in the binary: a docs site
// loads the component from the gate it talks to, so the two never drift.
package widget

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"time"
)

//go:embed assets/wikigate-ask.js assets/demo.html
var assets embed.FS

// ScriptPath is where the component is served. The major version is in
// the path: a change that breaks embedders gets a new path, and fixes ship
// with a new binary under the same one. So the file is cached for a day,
// not for ever (a fix must reach readers' browsers), and revalidated with
// its ETag, which costs a 304 and no body.
const ScriptPath = "/answer/widget/v1/wikigate-ask.js"

// scriptCacheControl: a day fresh, then a week served while revalidating.
const scriptCacheControl = "public, max-age=86400, stale-while-revalidate=604800"

// DemoPath is the demo page (served only when Handler.Demo is set).
const DemoPath = "/demo/"

// Handler serves the component, and the demo page when Demo is set.
type Handler struct {
	Demo bool
}

// Serve answers the widget's paths and reports whether it did; every other
// request is left to the gate. A method other than GET or HEAD on one of
// its paths is 405 with Allow, as a file server answers it.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request) bool {
	if !h.owns(r.URL.Path) {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "the widget's files are read with GET or HEAD", http.StatusMethodNotAllowed)
		return true
	}
	switch r.URL.Path {
	case ScriptPath:
		serveScript(w, r)
	case DemoPath:
		serveDemo(w, r)
	default:
		http.Redirect(w, r, DemoPath, http.StatusMovedPermanently)
	}
	return true
}

// owns: the component's path, and with Demo the demo page's.
func (h *Handler) owns(path string) bool {
	return h != nil && (path == ScriptPath || (h.Demo && (path == DemoPath || path == "/demo")))
}

func serveScript(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", scriptCacheControl)
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
	w.Header().Set("ETag", etags[name])
	// ServeContent answers If-None-Match with 304, HEAD with headers only.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// etags are the assets' strong validators: a hash of their bytes, so a new
// binary with the same file keeps its readers' cached copy valid.
var etags = func() map[string]string {
	out := map[string]string{}
	for _, name := range []string{"assets/wikigate-ask.js", "assets/demo.html"} {
		b, err := assets.ReadFile(name)
		if err != nil {
			panic(err) // embedded at build time
		}
		sum := sha256.Sum256(b)
		out[name] = `"` + hex.EncodeToString(sum[:12]) + `"`
	}
	return out
}()
