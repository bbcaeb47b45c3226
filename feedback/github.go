package feedback

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/wikigate/wikigate/safeurl"
)

// GitHub REST defaults.
const (
	DefaultGitHubAPIURL  = "https://api.github.com"
	DefaultGitHubTimeout = 10 * time.Second
	githubAPIVersion     = "2022-11-28"
	maxGitHubReply       = 1 << 20
)

// repoPattern is what GitHub allows in an owner or repository name; it also
// keeps the names safe to put in a URL path unescaped.
var repoPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

// GitHubConfig configures the GitHub Issues sink.
type GitHubConfig struct {
	Repo       string        // "owner/name"
	Token      string        // a token that may create issues and comments
	APIURL     string        // default https://api.github.com (GitHub Enterprise: https://HOST/api/v3)
	Labels     []string      // put on every new issue
	HTTPClient *http.Client  // default: a plain client
	Timeout    time.Duration // per API call; default 10s
}

// GitHubSink mirrors records as GitHub issues: one issue per open record, a
// comment per repeat (docs/protocol.md, Results: FeedbackResult: reuse the
// open issue, never duplicate it).
type GitHubSink struct {
	repo    string
	token   string
	api     string
	labels  []string
	client  *http.Client
	timeout time.Duration
}

// NewGitHubSink checks cfg and builds the sink. It makes no network call.
func NewGitHubSink(cfg GitHubConfig) (*GitHubSink, error) {
	if !repoPattern.MatchString(cfg.Repo) {
		return nil, fmt.Errorf("github repo %q is not owner/name", cfg.Repo)
	}
	if cfg.Token == "" {
		return nil, errors.New("github token is empty")
	}
	api := cfg.APIURL
	if api == "" {
		api = DefaultGitHubAPIURL
	}
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("github api url %q is not an http(s) url", api)
	}
	g := &GitHubSink{
		repo:    cfg.Repo,
		token:   cfg.Token,
		api:     strings.TrimRight(api, "/"),
		labels:  append([]string(nil), cfg.Labels...),
		client:  cfg.HTTPClient,
		timeout: cfg.Timeout,
	}
	if g.client == nil {
		g.client = &http.Client{}
	}
	if g.timeout <= 0 {
		g.timeout = DefaultGitHubTimeout
	}
	return g, nil
}

// issueReply is the part of GitHub's issue object the sink reads.
type issueReply struct {
	Number  int    `json:"number"`
	HTMLURL string `json:"html_url"`
	State   string `json:"state"`
}

func (r issueReply) ref() IssueRef {
	return IssueRef{Number: r.Number, URL: issuePageURL(r.HTMLURL), State: r.State}
}

// issuePageURL keeps GitHub's html_url only when it is an absolute http(s)
// address that safeurl allows: the URL reaches callers in feedback replies
// and the widget links it, so a compromised or misconfigured API endpoint
// (the sink's api option may name any host) must not plant a javascript:
// or data: link there, the rule every backend-supplied URL follows
// (docs/docs-sites.md, Safe URLs).
func issuePageURL(s string) string {
	if !safeurl.Allowed(s) {
		return ""
	}
	if u, err := url.Parse(s); err != nil || !u.IsAbs() || u.Host == "" {
		return "" // a relative path would resolve against the docs site
	}
	return s
}

// Sync implements Sink: create the issue for a new record; otherwise look
// at the issue first, report it closed if someone closed it, or comment.
func (g *GitHubSink) Sync(ctx context.Context, rec Record, occurrence Caller) (IssueRef, error) {
	if rec.Issue == nil {
		return g.createIssue(ctx, rec)
	}
	var cur issueReply
	path := fmt.Sprintf("/repos/%s/issues/%d", g.repo, rec.Issue.Number)
	if err := g.call(ctx, http.MethodGet, path, nil, http.StatusOK, &cur); err != nil {
		return IssueRef{}, err
	}
	ref := *rec.Issue
	ref.State = cur.State
	if u := issuePageURL(cur.HTMLURL); u != "" {
		ref.URL = u
	}
	if cur.State == StatusClosed {
		return ref, nil
	}
	body := map[string]string{"body": commentBody(rec, occurrence)}
	if err := g.call(ctx, http.MethodPost, path+"/comments", body, http.StatusCreated, nil); err != nil {
		return IssueRef{}, err
	}
	return ref, nil
}

func (g *GitHubSink) createIssue(ctx context.Context, rec Record) (IssueRef, error) {
	req := map[string]any{"title": issueTitle(rec), "body": issueBody(rec)}
	if len(g.labels) > 0 {
		req["labels"] = g.labels
	}
	var created issueReply
	if err := g.call(ctx, http.MethodPost, "/repos/"+g.repo+"/issues", req, http.StatusCreated, &created); err != nil {
		return IssueRef{}, err
	}
	if created.Number <= 0 {
		return IssueRef{}, errors.New("github created an issue without a number")
	}
	ref := created.ref()
	if ref.State == "" {
		ref.State = StatusOpen
	}
	return ref, nil
}

// call makes one API request. Errors name the method, path and status,
// never the token.
func (g *GitHubSink) call(ctx context.Context, method, path string, in any, want int, out any) error {
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encoding github request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, g.api+path, body)
	if err != nil {
		return fmt.Errorf("building github request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+g.token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", githubAPIVersion)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return fmt.Errorf("github %s %s: %w: %w", method, path, ErrSinkUnavailable, err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxGitHubReply))
	if err != nil {
		return fmt.Errorf("github %s %s: reading reply: %w: %w", method, path, ErrSinkUnavailable, err)
	}
	if resp.StatusCode != want {
		return statusError(method, path, resp, reply)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(reply, out); err != nil {
		return fmt.Errorf("github %s %s: decoding reply: %w", method, path, err)
	}
	return nil
}

// statusError reports an unexpected status with GitHub's message. Server
// errors and rate limits are ErrSinkUnavailable: waiting fixes them.
func statusError(method, path string, resp *http.Response, reply []byte) error {
	var msg struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(reply, &msg)
	err := fmt.Errorf("github %s %s: status %d: %s", method, path, resp.StatusCode, truncateRunes(msg.Message, 200))
	limited := resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode == http.StatusForbidden && resp.Header.Get("X-RateLimit-Remaining") == "0")
	if resp.StatusCode >= 500 || limited {
		return fmt.Errorf("%w: %w", ErrSinkUnavailable, err)
	}
	return err
}
