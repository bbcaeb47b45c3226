package policies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// httpSendPolicy calls http.send only for the caller "probe": a corpus of
// other callers never reaches it.
const httpSendPolicy = `package wikigate

decision := {"allow": false, "code": "unauthorized", "reason": "reached"} if {
	input.caller.id == "probe"
	http.send({"method": "GET", "url": "http://127.0.0.1:1/"}).status_code == 200
} else := {"allow": false, "code": "forbidden_tool", "reason": "no"}
`

// Under auto a policy that calls a non-deterministic built-in is decided
// by topdown (the cross-check cannot vouch for it, and http.send is
// topdown's to run); under an explicit wasm evaluator the built-in that
// fails inside the Wasm host denies with a one-line error that names it,
// never a Go stack trace.
func TestNonDeterministicBuiltinOnWasm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.rego"), []byte(httpSendPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	probe := Input{Tool: "search", Caller: Caller{Type: "agent", ID: "probe"}}

	auto, err := New(t.Context(), Options{Dir: dir, SkipTests: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := auto.current.Load(); p.wasm != nil || !strings.Contains(p.topdownReason, "http.send") {
		t.Errorf("auto: wasm %v, reason %q; want topdown, naming http.send", p.wasm != nil, p.topdownReason)
	}
	if d, err := auto.Decide(t.Context(), probe); err != nil || d.Code != "forbidden_tool" {
		t.Errorf("auto, the probe: %+v %v; want topdown's forbidden_tool", d, err)
	}

	wasm, err := New(t.Context(), Options{Dir: dir, SkipTests: true, Evaluator: EvaluatorWasm})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wasm.Decide(t.Context(), probe)
	if err == nil {
		t.Fatal("wasm, the probe: http.send ran in the wasm host; this test expects it to fail there (see recovering)")
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") || !strings.Contains(msg, "http.send") {
		t.Errorf("wasm, the probe: error %q; want one line naming http.send", msg)
	}
}
