package main

import (
	"encoding/json"
	"testing"
)

func TestRaiseLimitsSetsEveryLimitAndKeepsTheRest(t *testing.T) {
	in := `{"limits":{"per_minute":{"agents":{"search":1200},"agent_overrides":{"a":{"search":600}}},"per_hour":{"sessions":{"humans":120}}},"catalog":{"index":"wiki_pages","n":3}}`
	var data map[string]any
	if err := json.Unmarshal([]byte(in), &data); err != nil {
		t.Fatal(err)
	}
	if err := raiseLimits(data, 7); err != nil {
		t.Fatal(err)
	}
	want := `{"catalog":{"index":"wiki_pages","n":3},"limits":{"per_hour":{"sessions":{"humans":7}},"per_minute":{"agent_overrides":{"a":{"search":7}},"agents":{"search":7}}}}`
	if b, _ := json.Marshal(data); string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
	if err := raiseLimits(map[string]any{"catalog": map[string]any{}}, 7); err == nil {
		t.Fatal("a policy without limits must be an error: the bench would measure nothing")
	}
}
