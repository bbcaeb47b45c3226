package caddymodule

import (
	"slices"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
)

func TestDecisionLogOption(t *testing.T) {
	h := new(Handler)
	in := "wikigate {\n policy {\n decision_log buffer 50 mask /input/caller/roles /input/pages\n }\n}"
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err != nil {
		t.Fatal(err)
	}
	h.logger = zap.NewNop()
	o, err := h.engineOptions(caddy.NewReplacer(), nil)
	if err != nil || o.DecisionLog == nil || o.DecisionLog.Buffer != 50 ||
		!slices.Equal(o.DecisionLog.Mask, []string{"/input/caller/roles", "/input/pages"}) {
		t.Fatalf("decision log options %+v %v", o.DecisionLog, err)
	}
	for _, bad := range []string{"decision_log buffer", "decision_log buffer lots", "decision_log everything"} {
		err := new(Handler).UnmarshalCaddyfile(caddyfile.NewTestDispenser("wikigate {\n policy {\n " + bad + "\n }\n}"))
		if err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestDecisionLogUploadOption: a service block becomes the engine's upload
// with the token expanded from the environment; without console on the
// events go to the service only; options that need a service, a bad URL or
// an unset token refuse the configuration.
func TestDecisionLogUploadOption(t *testing.T) {
	t.Setenv("DL_TOKEN", "tok")
	in := "wikigate {\n policy {\n decision_log {\n service https://logs.example/logs\n bearer_token {env.DL_TOKEN}\n batch 7 3s\n upload_buffer 9\n }\n }\n}"
	o := decisionLogOptions(t, in)
	up := o.DecisionLog.Upload
	if up == nil || up.URL != "https://logs.example/logs" || up.Headers["Authorization"] != "Bearer tok" ||
		up.Batch != 7 || up.Interval != 3*time.Second || up.Buffer != 9 || o.DecisionLog.Logger != nil {
		t.Fatalf("upload %+v logger %v", up, o.DecisionLog.Logger)
	}
	both := decisionLogOptions(t, "wikigate {\n policy {\n decision_log {\n service http://127.0.0.1:1/logs\n console on\n }\n }\n}")
	if both.DecisionLog.Upload == nil || both.DecisionLog.Logger == nil {
		t.Errorf("console on with a service: %+v", both.DecisionLog)
	}
	for _, bad := range []string{"batch 10", "service ftp://x", "service https://x\n bearer_token {env.DL_UNSET}", "console off"} {
		h := new(Handler)
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("wikigate {\n policy {\n decision_log {\n " + bad + "\n }\n }\n}"))
		if err == nil {
			h.logger = zap.NewNop()
			_, err = h.engineOptions(caddy.NewReplacer(), nil)
		}
		if err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func decisionLogOptions(t *testing.T, in string) policies.Options {
	t.Helper()
	h := new(Handler)
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err != nil {
		t.Fatal(err)
	}
	h.logger = zap.NewNop()
	o, err := h.engineOptions(caddy.NewReplacer(), nil)
	if err != nil || o.DecisionLog == nil {
		t.Fatalf("%v %+v", err, o)
	}
	return o
}
