package openapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wikigate/wikigate/feedback"
	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/meiliroutes"
	"github.com/wikigate/wikigate/sessions"
)

var update = flag.Bool("update", false, "rewrite docs/openapi.json")

const documentPath = "../docs/openapi.json"

// Stand-ins whose methods are never called: the route table only asks
// whether each optional part of the gate is there.
type (
	nopAuth     struct{ gateway.Authenticator }
	nopPolicy   struct{ gateway.Decider }
	nopSearch   struct{ gateway.Searcher }
	nopAnswers  struct{ gateway.Answerer }
	nopSessions struct{ sessions.Store }
	nopFeedback struct{ feedback.Submitter }
)

// everyRoute is the route table of a gate with every optional part
// configured (answers, sessions, feedback), so the document lists every
// route any gate can serve.
func everyRoute(t *testing.T) []gateway.RouteDoc {
	t.Helper()
	g, err := gateway.New(gateway.Config{}, gateway.Deps{
		Auth: nopAuth{}, Policy: nopPolicy{}, Search: nopSearch{},
		Answers: nopAnswers{}, Sessions: nopSessions{}, Feedback: nopFeedback{},
		Routes: []gateway.RouteSet{meiliroutes.Set()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g.RouteDocs()
}

// TestDocumentIsCurrent: docs/openapi.json is what Build writes from the
// route table and the routes' Go types, so a route or a request or result
// field added without regenerating the document fails here.
func TestDocumentIsCurrent(t *testing.T) {
	got, err := Build(everyRoute(t))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(documentPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(documentPath)
	if err != nil {
		t.Fatalf("%v (generate it: go test ./openapi -run TestDocumentIsCurrent -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with the routes and their types; regenerate it with\n\tgo test ./openapi -run TestDocumentIsCurrent -update\nand review the diff", filepath.Base(documentPath))
	}
}

// TestDocumentCoversEveryRoute: every route of the table is a path of the
// document with its method, a body schema for each POST and the error
// envelope; the protocol's main routes are there by name.
func TestDocumentCoversEveryRoute(t *testing.T) {
	routes := everyRoute(t)
	raw, err := Build(routes)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
		Comp    struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q", doc.OpenAPI)
	}
	for _, rt := range routes {
		op, ok := doc.Paths[rt.Path][map[string]string{"GET": "get", "POST": "post"}[rt.Method]]
		if !ok {
			t.Errorf("%s %s is not in the document", rt.Method, rt.Path)
			continue
		}
		if _, ok := op["requestBody"]; ok != (rt.Method == "POST") {
			t.Errorf("%s %s: request body present %v", rt.Method, rt.Path, ok)
		}
	}
	for _, p := range []string{"/agent/tools/search", "/agent/tools/get_page", "/agent/tools/ask", "/agent/tools/get_context",
		"/agent/tools/create_feedback", "/answer/ask", "/answer/sessions/{sessionId}/turns", "/answer/feedback", "/healthz"} {
		if _, ok := doc.Paths[p]; !ok {
			t.Errorf("the document lacks %s", p)
		}
	}
	var envelope struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(doc.Comp.Schemas["ErrorBody"], &envelope); err != nil || !slices.Contains(envelope.Required, "error") {
		t.Errorf("ErrorBody schema = %s (%v)", doc.Comp.Schemas["ErrorBody"], err)
	}
}
