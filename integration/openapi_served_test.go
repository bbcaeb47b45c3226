package integration

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"
)

// GET /openapi.json serves the OpenAPI document of the routes the gate
// serves, without a credential: for a gate serving every route (this
// one), exactly docs/openapi.json. Another method is 405 with Allow.
func TestOpenAPIDocumentIsServed(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.do(newGet(t, g.url+"/openapi.json"))
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /openapi.json: %d %v", r.Status, r.Header)
	}
	var doc map[string]any
	if err := json.Unmarshal(r.Body, &doc); err != nil || doc["openapi"] != "3.1.0" {
		t.Fatalf("not an OpenAPI 3.1 document (%v): %.200s", err, r.Body)
	}
	want, err := os.ReadFile("../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Body) != string(want) {
		t.Errorf("the served document differs from docs/openapi.json (%d and %d bytes)", len(r.Body), len(want))
	}
	req, _ := http.NewRequest(http.MethodPost, g.url+"/openapi.json", nil)
	if p := g.do(req); p.Status != 405 || p.errorCode(t) != "method_not_allowed" || p.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /openapi.json: %d %v %s", p.Status, p.Header, p.Body)
	}
}
