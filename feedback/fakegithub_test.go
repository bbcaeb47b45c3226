package feedback

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

const (
	testToken = "ghp-test-token-do-not-log"
	testRepo  = "acme/wiki"
)

// fakeGitHub reproduces the REST shapes the sink uses: create issue (201),
// get issue (200), create comment (201); 401 without the right headers and
// 503 while down.
type fakeGitHub struct {
	srv *httptest.Server

	mu     sync.Mutex
	issues []*fakeIssue // number = index + 1
	down   bool
	calls  int
}

type fakeIssue struct {
	Title    string
	Body     string
	Labels   []string
	State    string
	Comments []string
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /repos/acme/wiki/issues", f.createIssue)
	mux.HandleFunc("GET /repos/acme/wiki/issues/{n}", f.getIssue)
	mux.HandleFunc("GET /repos/acme/wiki/issues", f.listIssues)
	mux.HandleFunc("POST /repos/acme/wiki/issues/{n}/comments", f.createComment)
	f.srv = httptest.NewServer(f.guard(mux))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls++
		down := f.down
		f.mu.Unlock()
		switch {
		case down:
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"message": "unavailable"})
		case r.Header.Get("Authorization") != "Bearer "+testToken,
			r.Header.Get("Accept") != "application/vnd.github+json",
			r.Header.Get("X-GitHub-Api-Version") != "2022-11-28":
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func (f *fakeGitHub) createIssue(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Title == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return
	}
	f.mu.Lock()
	f.issues = append(f.issues, &fakeIssue{Title: in.Title, Body: in.Body, Labels: in.Labels, State: "open"})
	n := len(f.issues)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, f.issueJSON(n, "open"))
}

func (f *fakeGitHub) getIssue(w http.ResponseWriter, r *http.Request) {
	issue, n := f.issue(r)
	if issue == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	f.mu.Lock()
	state := issue.State
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, f.issueJSON(n, state))
}

// listIssues answers the newest first, with bodies, as GitHub does for
// sort=created&direction=desc.
func (f *fakeGitHub) listIssues(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	out := []map[string]any{}
	for n := len(f.issues); n >= 1; n-- {
		is := f.issueJSON(n, f.issues[n-1].State)
		is["body"] = f.issues[n-1].Body
		out = append(out, is)
	}
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (f *fakeGitHub) createComment(w http.ResponseWriter, r *http.Request) {
	issue, _ := f.issue(r)
	var in struct {
		Body string `json:"body"`
	}
	if issue == nil || json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == "" {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	f.mu.Lock()
	issue.Comments = append(issue.Comments, in.Body)
	id := len(issue.Comments)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"id": id, "body": in.Body})
}

func (f *fakeGitHub) issue(r *http.Request) (*fakeIssue, int) {
	n, err := strconv.Atoi(r.PathValue("n"))
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil || n < 1 || n > len(f.issues) {
		return nil, 0
	}
	return f.issues[n-1], n
}

func (f *fakeGitHub) issueJSON(n int, state string) map[string]any {
	return map[string]any{
		"number":   n,
		"html_url": fmt.Sprintf("https://github.example/acme/wiki/issues/%d", n),
		"state":    state,
		"title":    "ignored",
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// setDown makes every call fail with 503 (or recover).
func (f *fakeGitHub) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

// closeIssue closes issue n the way a person on GitHub would.
func (f *fakeGitHub) closeIssue(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.issues[n-1].State = "closed"
}

// snapshot copies the issues for assertions.
func (f *fakeGitHub) snapshot() []fakeIssue {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]fakeIssue, len(f.issues))
	for i, is := range f.issues {
		out[i] = *is
		out[i].Comments = append([]string(nil), is.Comments...)
	}
	return out
}

func (f *fakeGitHub) sink(t *testing.T) *GitHubSink {
	t.Helper()
	g, err := NewGitHubSink(GitHubConfig{
		Repo: testRepo, Token: testToken, APIURL: f.srv.URL,
		Labels: []string{"wikigate", "knowledge-gap"}, HTTPClient: f.srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
