package feedback

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A GitHub API that answers with a planted html_url (a compromised proxy,
// or an api option pointing somewhere hostile) must not put a script link
// into the feedback reply the widget renders.
func TestGitHubIssueURLOnlyWhenItIsAnHTTPPage(t *testing.T) {
	cases := map[string]string{
		"https://github.com/acme/wiki/issues/7":    "https://github.com/acme/wiki/issues/7",
		"javascript:alert(document.domain)":        "",
		"data:text/html,<script>alert(1)</script>": "",
		"//evil.example/issues/7":                  "",
		"/acme/wiki/issues/7":                      "",
		" https://github.com/acme/wiki/issues/7":   "",
	}
	for planted, want := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if r.Method == http.MethodPost {
				w.WriteHeader(http.StatusCreated)
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"number": 7, "html_url": planted, "state": "open"})
		}))
		sink, err := NewGitHubSink(GitHubConfig{Repo: "acme/wiki", Token: "t", APIURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		created, err := sink.Sync(context.Background(), Record{ID: "r1", Question: "q"}, Caller{Type: "agent", ID: "a"})
		if err != nil {
			t.Fatalf("%q: create: %v", planted, err)
		}
		if created.URL != want {
			t.Errorf("html_url %q on create: issue url %q, want %q", planted, created.URL, want)
		}
		again, err := sink.Sync(context.Background(), Record{ID: "r1", Question: "q", Issue: &IssueRef{Number: 7}}, Caller{Type: "agent", ID: "a"})
		if err != nil {
			t.Fatalf("%q: comment: %v", planted, err)
		}
		if again.URL != want {
			t.Errorf("html_url %q on a repeat: issue url %q, want %q", planted, again.URL, want)
		}
		srv.Close()
	}
}
