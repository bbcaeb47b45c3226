package retrieval

import (
	"slices"
	"testing"
)

func TestQueries(t *testing.T) {
	cases := []struct {
		question string
		n        int
		want     []string
	}{
		{"How long are the RDB snapshots of agent memory kept?", 1,
			[]string{"How long are the RDB snapshots of agent memory kept?"}},
		{"How long are the RDB snapshots of agent memory kept?", 3,
			[]string{"How long are the RDB snapshots of agent memory kept?", "RDB snapshots agent memory kept", "RDB"}},
		// identifiers and hyphenated names stay whole; "I" is no name
		{"What is the default of server.max_concurrent_turns in kunora-gateway?", 3,
			[]string{"What is the default of server.max_concurrent_turns in kunora-gateway?",
				"default server.max_concurrent_turns kunora-gateway", "server.max_concurrent_turns kunora-gateway"}},
		{"How do I enable HTTP/2 in Python?", 3,
			[]string{"How do I enable HTTP/2 in Python?", "enable HTTP/2 Python", "HTTP/2 Python"}},
		// a Chinese question over an English wiki: its Latin words
		{"如何配置 agent memory 使用 Redis？", 2, []string{"如何配置 agent memory 使用 Redis？", "agent memory Redis"}},
		{"Prettier 的 printWidth 默认是多少？", 3, []string{"Prettier 的 printWidth 默认是多少？", "Prettier printWidth", "printWidth"}},
		// all Chinese: the question less its question words and particles
		{"公司的年假政策是什么？", 2, []string{"公司的年假政策是什么？", "公司 年假政策"}},
		// a query that is already keywords is asked once
		{"redis password", 3, []string{"redis password"}},
		{"?", 3, []string{"?"}},
	}
	for _, c := range cases {
		if got := Queries(c.question, c.n); !slices.Equal(got, c.want) {
			t.Errorf("Queries(%q, %d) = %q, want %q", c.question, c.n, got, c.want)
		}
	}
}

// TestSearchText: Meilisearch gets a question's keywords, so that its
// default matching strategy ("last": drop words from the end until pages
// match) drops the least telling words, never needs a page to hold "long"
// or "many", and a Chinese question finds English pages by its Latin
// words; a query of keywords or of stop words only goes as typed.
func TestSearchText(t *testing.T) {
	for q, want := range map[string]string{
		"How long are the RDB snapshots of agent memory kept?":                "RDB snapshots agent memory kept",
		"How many spaces per indentation level does Prettier use by default?": "spaces per indentation level Prettier use default",
		"HTTPX 默认的 timeout 是多少秒？":                                             "HTTPX timeout",
		"redis password": "redis password",
		"how to":         "how to",
	} {
		if got := SearchText(q); got != want {
			t.Errorf("SearchText(%q) = %q, want %q", q, got, want)
		}
	}
}
