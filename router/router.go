// Package router is the gate's one request router (docs/architecture.md,
// "Routing"): a net/http.ServeMux of method and path patterns, with path
// wildcards read through r.PathValue, behind which every entry the gate
// serves sits. It adds what the gate needs of ServeMux and keeps out what
// would change what callers see: every path ServeMux would answer itself
// (its plain-text 404 and 405, its redirects to a cleaned path or to a
// trailing slash) goes to the table's fallback instead, which answers in
// the protocol's JSON and audits the call.
package router

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Entry is one line of the route table.
type Entry struct {
	// Method is the method Handler serves ("GET" also serves HEAD, as
	// ServeMux has it); "" serves every method.
	Method string
	// Pattern is a ServeMux path pattern: literal segments and {name}
	// wildcards, each matching one non-empty segment (Exact makes one of
	// a configured path).
	Pattern string
	Handler http.Handler
	// OtherMethods answers the other methods on Pattern, in the entry's
	// own shape (the protocol's 405 with Allow, a file's 405); required
	// with Method.
	OtherMethods http.Handler
}

// Middleware wraps a handler: a check or a header every request of the
// entries it wraps goes through.
type Middleware func(http.Handler) http.Handler

// Chain wraps h in mw, the first outermost; a nil Middleware is skipped.
func Chain(h http.Handler, mw ...Middleware) http.Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		if mw[i] != nil {
			h = mw[i](h)
		}
	}
	return h
}

// Wrap returns the entries with both their handlers wrapped in mw.
func Wrap(entries []Entry, mw ...Middleware) []Entry {
	out := make([]Entry, len(entries))
	for i, e := range entries {
		e.Handler = Chain(e.Handler, mw...)
		if e.OtherMethods != nil {
			e.OtherMethods = Chain(e.OtherMethods, mw...)
		}
		out[i] = e
	}
	return out
}

// Router serves a table of entries.
type Router struct {
	mux      *http.ServeMux
	fallback http.Handler
	patterns []string
}

// New builds the router of entries; fallback answers every request no
// entry matches. Two entries that would serve the same request, or a
// pattern ServeMux refuses, are an error: the table is checked when the
// gate loads its configuration, never when a request comes.
func New(entries []Entry, fallback http.Handler) (*Router, error) {
	rt := &Router{mux: http.NewServeMux(), fallback: fallback}
	for _, e := range entries {
		if err := rt.add(e); err != nil {
			return nil, err
		}
	}
	if err := rt.closeSlashRedirects(); err != nil {
		return nil, err
	}
	if err := rt.handle("/", fallback); err != nil {
		return nil, err
	}
	return rt, nil
}

// add registers an entry: its method's pattern, and the path alone for
// the other methods.
func (rt *Router) add(e Entry) error {
	if e.Handler == nil || (e.Method != "" && e.OtherMethods == nil) {
		return fmt.Errorf("router: entry %q %q lacks a handler", e.Method, e.Pattern)
	}
	if e.Method == "" {
		return rt.handle(e.Pattern, e.Handler)
	}
	if err := rt.handle(e.Method+" "+e.Pattern, e.Handler); err != nil {
		return err
	}
	return rt.handle(e.Pattern, e.OtherMethods)
}

// handle registers one pattern, turning ServeMux's panic on a bad or
// conflicting pattern into an error.
func (rt *Router) handle(pattern string, h http.Handler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("router: %v", p)
		}
	}()
	rt.mux.Handle(pattern, h)
	rt.patterns = append(rt.patterns, pattern)
	return nil
}

// closeSlashRedirects registers "/x" for the fallback beside every exact
// "/x/{$}" that lacks it: ServeMux would otherwise answer "/x" with a
// redirect to "/x/".
func (rt *Router) closeSlashRedirects() error {
	for _, p := range slices.Clone(rt.patterns) {
		path := p[strings.IndexByte(p, '/'):]
		bare, ok := strings.CutSuffix(path, "/{$}")
		if !ok || bare == "" || slices.Contains(rt.patterns, bare) {
			continue
		}
		if err := rt.handle(bare, rt.fallback); err != nil {
			return err
		}
	}
	return nil
}

// ServeHTTP hands r to its entry, or to the fallback.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mr, ok := matchable(r)
	if !ok {
		rt.fallback.ServeHTTP(w, r)
		return
	}
	rt.mux.ServeHTTP(w, mr)
}
