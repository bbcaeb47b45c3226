package caddymodule

import (
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/wikigate/wikigate/gateway"
)

func TestPeopleFeedbackLimitOption(t *testing.T) {
	h := new(Handler)
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("wikigate {\n feedback {\n people_limit 10 30s\n }\n}"))
	if err != nil {
		t.Fatal(err)
	}
	got := h.Feedback.PeopleLimit.feedbackLimit()
	if got != (gateway.FeedbackLimit{Burst: 10, Every: 30 * time.Second}) {
		t.Fatalf("people_limit 10 30s → %+v", got)
	}
	if (*PeopleFeedbackLimit)(nil).feedbackLimit() != (gateway.FeedbackLimit{}) {
		t.Fatal("no people_limit must leave the gateway's defaults")
	}
}

func TestBrowserOptionErrors(t *testing.T) {
	cases := map[string]string{
		"people_limit one arg":      "wikigate {\n feedback {\n people_limit 5\n }\n}",
		"people_limit three args":   "wikigate {\n feedback {\n people_limit 5 1m 2\n }\n}",
		"people_limit zero":         "wikigate {\n feedback {\n people_limit 0 1m\n }\n}",
		"people_limit not a number": "wikigate {\n feedback {\n people_limit many 1m\n }\n}",
		"people_limit bad duration": "wikigate {\n feedback {\n people_limit 5 soon\n }\n}",
		"people_limit under 1s":     "wikigate {\n feedback {\n people_limit 5 10ms\n }\n}",
		"max_open zero":             "wikigate {\n streaming {\n max_open 0\n }\n}",
		"max_open text":             "wikigate {\n streaming {\n max_open lots\n }\n}",
	}
	refusesEach(t, cases)
}

func TestStreamingMaxOpenReachesTheGateway(t *testing.T) {
	h := new(Handler)
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("wikigate {\n streaming {\n max_open 64\n max_per_caller 2\n }\n}")); err != nil {
		t.Fatal(err)
	}
	if sc := h.Streaming.streamConfig(); sc.MaxOpen != 64 || sc.MaxPerCaller != 2 {
		t.Fatalf("streaming block → %+v", sc)
	}
}
