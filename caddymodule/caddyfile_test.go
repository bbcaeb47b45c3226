package caddymodule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddytest"
)

// TestCaddyfileAdapt checks each testdata/caddyfile_adapt/*.caddyfiletest:
// the Caddyfile above the ---------- line adapts to the JSON below it, so
// every directive option maps onto its JSON field.
func TestCaddyfileAdapt(t *testing.T) {
	files, err := filepath.Glob("testdata/caddyfile_adapt/*.caddyfiletest")
	if err != nil || len(files) == 0 {
		t.Fatalf("no adapt goldens: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in, want, ok := strings.Cut(string(raw), "----------")
		if !ok {
			t.Fatalf("%s has no ---------- separator", f)
		}
		if !caddytest.CompareAdapt(t, f, in, "caddyfile", strings.TrimSpace(want)) {
			t.Errorf("%s: adapted JSON differs", f)
		}
	}
}

func TestUnmarshalCaddyfileErrors(t *testing.T) {
	cases := map[string]string{
		"unknown option":       "wikigate {\n bogus 1\n}",
		"duplicate option":     "wikigate {\n policy_dir a\n policy_dir b\n}",
		"inline argument":      "wikigate extra",
		"watch not on/off":     "wikigate {\n watch_policy maybe\n}",
		"bad duration":         "wikigate {\n decision_timeout soon\n}",
		"bad size":             "wikigate {\n max_body_size -3\n}",
		"roles claim on agent": "wikigate {\n agent_jwt {\n roles_claim r\n }\n}",
		"duplicate kid":        "wikigate {\n agent_jwt {\n hmac_secret k a\n hmac_secret k b\n }\n}",
		"tenant key one arg":   "wikigate {\n meilisearch {\n tenant_key k\n }\n}",
		"page size too big":    "wikigate {\n ragflow {\n page_size 1000\n }\n}",
		"score over one":       "wikigate {\n ragflow {\n high_score 2\n }\n}",
		"support over one":     "wikigate {\n ragflow {\n support_threshold 1.5\n }\n}",
		"min supported text":   "wikigate {\n ragflow {\n min_supported most\n }\n}",
		"mcp enable maybe":     "wikigate {\n mcp {\n enable maybe\n }\n}",
		"mcp no sessions":      "wikigate {\n mcp {\n max_sessions_per_caller 0\n }\n}",
		"mcp unknown option":   "wikigate {\n mcp {\n origins http://x\n }\n}",
		"sessions store disk":  "wikigate {\n sessions {\n store disk\n }\n}",
		"redis pool zero":      "wikigate {\n redis {\n pool_size 0\n }\n}",
		"redis tls maybe":      "wikigate {\n redis {\n tls maybe\n }\n}",
		"redis unknown option": "wikigate {\n redis {\n host x\n }\n}",
		"feedback store disk":  "wikigate {\n feedback {\n store disk\n }\n}",
		"postgres conns zero":  "wikigate {\n postgres {\n max_conns 0\n }\n}",
		"postgres unknown":     "wikigate {\n postgres {\n url x\n }\n}",
	}
	refusesEach(t, cases)
}

// refusesEach checks that every named Caddyfile input is refused with an
// error that says where (the file and line), as an operator needs it.
func refusesEach(t *testing.T, cases map[string]string) {
	t.Helper()
	for name, input := range cases {
		t.Run(name, func(t *testing.T) {
			err := new(Handler).UnmarshalCaddyfile(caddyfile.NewTestDispenser(input))
			if err == nil {
				t.Fatalf("accepted %q", input)
			}
			if !strings.Contains(err.Error(), "Testfile:") {
				t.Fatalf("error %q does not say where", err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	if err := (&Handler{SiteMode: "open"}).Validate(); err == nil {
		t.Fatal("an unknown site mode must not validate")
	}
	if err := (&Handler{}).Validate(); err == nil || !strings.Contains(err.Error(), "agent credential") {
		t.Fatalf("a gate without agent credentials: %v", err)
	}
	if err := (&Handler{APIKeysFile: "k.json"}).Validate(); err != nil {
		t.Fatal(err)
	}
}

// FuzzUnmarshalCaddyfile: the directive parser never panics. Inputs Caddy's
// own lexer refuses are skipped: they never reach a directive parser, and
// caddyfile.NewTestDispenser would log.Fatalf on them (killing the fuzzer).
func FuzzUnmarshalCaddyfile(f *testing.F) {
	for _, s := range []string{
		"wikigate {\n site_mode public-read\n agent_jwt {\n issuer i\n audience a\n hmac_secret s\n }\n}",
		"wikigate {\n meilisearch {\n url http://x\n tenant_key a b\n }\n ragflow {\n page_size 3\n }\n}",
		"wikigate {\n max_body_size 1MiB\n}",
		"wikigate {\n ragflow {\n retrieval {\n queries 2\n rerank_id r\n keyword on\n }\n }\n}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		tokens, err := caddyfile.Tokenize([]byte(input), "Testfile")
		if err != nil {
			t.Skip("not a Caddyfile Caddy's lexer accepts")
		}
		_ = new(Handler).UnmarshalCaddyfile(caddyfile.NewDispenser(tokens))
	})
}

// TestCaddyfileGroundingThresholds: the ragflow block's grounding
// thresholds reach the answer engine.
func TestCaddyfileGroundingThresholds(t *testing.T) {
	h := new(Handler)
	in := "wikigate {\n ragflow {\n support_threshold 0.6\n min_supported 0.25\n }\n}"
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err != nil {
		t.Fatal(err)
	}
	if a := h.RAGFlow.answerConfig(); a.SupportThreshold != 0.6 || a.MinSupported != 0.25 {
		t.Errorf("answer config %+v", a)
	}
}
