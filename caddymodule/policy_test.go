package caddymodule

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
)

func TestPolicyBlockErrors(t *testing.T) {
	cases := map[string]string{
		"require_tests maybe":  "wikigate {\n policy {\n require_tests maybe\n }\n}",
		"unknown option":       "wikigate {\n policy {\n tests on\n }\n}",
		"key without secret":   "wikigate {\n policy {\n verification_key k HS256\n }\n}",
		"duplicate key id":     "wikigate {\n policy {\n verification_key k HS256 a\n verification_key k HS256 b\n }\n}",
		"poll not a duration":  "wikigate {\n policy {\n bundle_poll often\n }\n}",
		"two bundles":          "wikigate {\n policy {\n bundle a\n bundle b\n }\n}",
		"policy block inline":  "wikigate {\n policy on\n}",
		"poll three arguments": "wikigate {\n policy {\n bundle_poll 1s 2s 3s\n }\n}",
		"unknown evaluator":    "wikigate {\n policy {\n evaluator fast\n }\n}",
	}
	for name, input := range cases {
		t.Run(name, func(t *testing.T) {
			err := new(Handler).UnmarshalCaddyfile(caddyfile.NewTestDispenser(input))
			if err == nil || !strings.Contains(err.Error(), "Testfile:") {
				t.Fatalf("%q: %v", input, err)
			}
		})
	}
}

func TestEngineOptions(t *testing.T) {
	repl := caddy.NewReplacer()
	off := false
	h := &Handler{logger: zap.NewNop()}
	if o, err := h.engineOptions(repl, nil); err != nil || o.Dir != "rego" || o.SkipTests || o.Bundle != nil {
		t.Fatalf("defaults: %+v %v", o, err)
	}
	h.Policy = &PolicyConfig{RequireTests: &off}
	if o, _ := h.engineOptions(repl, nil); !o.SkipTests || o.Dir != "rego" {
		t.Fatalf("require_tests off: %+v", o)
	}
	h.Policy = &PolicyConfig{Evaluator: "wasm"}
	if o, _ := h.engineOptions(repl, nil); o.Evaluator != "wasm" {
		t.Fatalf("evaluator wasm: %+v", o)
	}
	h.Policy = &PolicyConfig{Bundle: "b.tar.gz", VerificationKeys: map[string]BundleKey{"k": {Algorithm: "HS256", Secret: "s"}}}
	if o, err := h.engineOptions(repl, nil); err != nil || o.Dir != "" || o.Bundle.Source != "b.tar.gz" || o.Bundle.Keys["k"].Key != "s" || o.SkipTests {
		t.Fatalf("bundle: %+v %v", o, err)
	}
	h.PolicyDir = "rego"
	if _, err := h.engineOptions(repl, nil); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Fatalf("policy_dir and a bundle: %v", err)
	}
	h.PolicyDir, h.Policy = "", &PolicyConfig{VerificationKeys: map[string]BundleKey{"k": {Algorithm: "HS256", Secret: "s"}}}
	if _, err := h.engineOptions(repl, nil); err == nil {
		t.Fatal("a verification key without a bundle must not configure")
	}
	h.Policy = &PolicyConfig{Bundle: "b", VerificationKeys: map[string]BundleKey{"k": {Algorithm: "HS256", Secret: "{env.WIKIGATE_UNSET_FOR_TEST}"}}}
	if _, err := h.engineOptions(repl, nil); err == nil || !strings.Contains(err.Error(), "empty secret") {
		t.Fatalf("an unset secret: %v", err)
	}
}

func TestPolicyReloadMetrics(t *testing.T) {
	m := newMetrics()
	m.PolicyRevision("r1", "wasm")
	m.PolicyReload("tests_failed")
	m.PolicyReload("activated")
	m.PolicyRevision("r2", "topdown")
	if got := testutil.ToFloat64(m.reloads.WithLabelValues("tests_failed")); got != 1 {
		t.Errorf("tests_failed = %v", got)
	}
	if n := testutil.CollectAndCount(m.revision); n != 1 || testutil.ToFloat64(m.revision.WithLabelValues("r2", "topdown")) != 1 {
		t.Errorf("revision info holds %d series, want only r2", n)
	}
}
