package caddymodule

import (
	"slices"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"
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
