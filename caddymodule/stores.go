package caddymodule

import (
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/feedback"
	"github.com/wikigate/wikigate/sessions"
)

// stores holds the session and feedback stores across config reloads: Caddy
// provisions the new config before cleaning up the old one, and a second
// open of the same bbolt file would wait on its lock, while sessions would
// be lost. Keyed by what identifies each store.
var stores = caddy.NewUsagePool()

// SessionsConfig configures the AnswerSession store.
type SessionsConfig struct {
	// Store is "memory" (default: this process only) or "redis" (shared by
	// every gate using the same Redis, which needs the redis block).
	Store string `json:"store,omitempty"`
	// TTL is a session's lifetime. Default 30m.
	TTL caddy.Duration `json:"ttl,omitempty"`
	// MaxTurns and MaxContextTokens bound a session's history; older turns
	// are trimmed and a citation summary of them is kept. Defaults 8, 12000.
	MaxTurns         int `json:"max_turns,omitempty"`
	MaxContextTokens int `json:"max_context_tokens,omitempty"`
	// MaxMemoryBytes caps the sessions of signed-in callers (agents, humans
	// with a token). Default 256 MiB.
	MaxMemoryBytes int `json:"max_memory_bytes,omitempty"`
	// AnonymousMemoryBytes and AnonymousSessions budget anonymous
	// visitors' sessions, stored apart so they can never evict a signed-in
	// caller's; past the budget new anonymous sessions get 429. Defaults
	// 32 MiB and 10000. With store redis, AnonymousSessions is one count
	// across all gates and the memory options do not apply.
	AnonymousMemoryBytes int `json:"anonymous_memory_bytes,omitempty"`
	AnonymousSessions    int `json:"anonymous_sessions,omitempty"`
}

// FeedbackConfig configures the durable feedback store and its optional
// GitHub Issues sink.
type FeedbackConfig struct {
	// Store is "bolt" (default: a file one gate owns) or "postgres"
	// (shared by every gate using the same database; needs the postgres
	// block).
	Store string `json:"store,omitempty"`
	// Path of the bbolt database. Default "data/feedback.db".
	Path string `json:"path,omitempty"`
	// GitHub, when set, mirrors each record to one GitHub issue.
	GitHub *GitHubConfig `json:"github,omitempty"`
	// PeopleLimit is each caller's budget on POST /answer/feedback.
	PeopleLimit *PeopleFeedbackLimit `json:"people_limit,omitempty"`
}

// GitHubConfig is the GitHub Issues sink.
type GitHubConfig struct {
	Repo   string   `json:"repo,omitempty"`    // owner/name
	Token  string   `json:"token,omitempty"`   // {env.NAME}
	APIURL string   `json:"api_url,omitempty"` // default https://api.github.com
	Labels []string `json:"labels,omitempty"`
}

type sessionStore struct{ *sessions.MemoryStore }

func (s sessionStore) Destruct() error { return s.Close() }

type feedbackStore struct{ *feedback.Store }

func (s feedbackStore) Destruct() error { return s.Close() }

// pooledSessions is a session store that knows the lifetime it is sized for.
type pooledSessions interface {
	sessions.Store
	TTL() time.Duration
}

// loadSessions returns the pooled session store the config names, and its
// pool key.
func (h *Handler) loadSessions(repl *caddy.Replacer) (pooledSessions, string, error) {
	switch h.Sessions.Store {
	case "", "memory":
		return h.Sessions.loadMemorySessions()
	case "redis":
		return h.Sessions.loadRedisSessions(h.Redis, repl, h.logger)
	}
	return nil, "", fmt.Errorf("sessions: store must be memory or redis, not %q", h.Sessions.Store)
}

// loadMemorySessions returns the pooled embedded store and its pool key.
func (c *SessionsConfig) loadMemorySessions() (pooledSessions, string, error) {
	cfg := sessions.MemoryConfig{
		TTL: time.Duration(c.TTL), MaxBytes: c.MaxMemoryBytes,
		AnonymousMaxBytes: c.AnonymousMemoryBytes, AnonymousMaxSessions: c.AnonymousSessions,
	}
	key := fmt.Sprintf("sessions:%d:%d:%d:%d", cfg.TTL, cfg.MaxBytes, cfg.AnonymousMaxBytes, cfg.AnonymousMaxSessions)
	v, _, err := stores.LoadOrNew(key, func() (caddy.Destructor, error) {
		s, err := sessions.NewMemoryStore(cfg)
		return sessionStore{s}, err
	})
	if err != nil {
		return nil, "", fmt.Errorf("session store: %w", err)
	}
	return v.(sessionStore).MemoryStore, key, nil
}

func (c *SessionsConfig) limits() sessions.Limits {
	return sessions.Limits{MaxTurns: c.MaxTurns, MaxContextTokens: c.MaxContextTokens}
}

// loadFeedback returns the pooled feedback store the config names and its
// pool key. The GitHub sink is fixed when the store is first opened:
// changing it needs a restart (a bolt database is keyed by its path).
func (c *FeedbackConfig) loadFeedback(pc *PostgresConfig, repl *caddy.Replacer, logger *zap.Logger) (feedback.Submitter, string, error) {
	opts, err := c.options(repl, logger)
	if err != nil {
		return nil, "", err
	}
	switch c.Store {
	case "", "bolt":
		return c.loadBoltFeedback(repl, opts)
	case "postgres":
		return c.loadPostgresFeedback(pc, repl, opts)
	}
	return nil, "", fmt.Errorf("feedback: store must be bolt or postgres, not %q", c.Store)
}

// options builds the store options shared by both stores: the logger and
// the GitHub sink.
func (c *FeedbackConfig) options(repl *caddy.Replacer, logger *zap.Logger) (feedback.Options, error) {
	opts := feedback.Options{Logger: logger}
	if c.GitHub != nil {
		sink, err := feedback.NewGitHubSink(feedback.GitHubConfig{
			Repo: repl.ReplaceAll(c.GitHub.Repo, ""), Token: repl.ReplaceAll(c.GitHub.Token, ""),
			APIURL: repl.ReplaceAll(c.GitHub.APIURL, ""), Labels: c.GitHub.Labels,
		})
		if err != nil {
			return opts, fmt.Errorf("feedback github sink: %w", err)
		}
		// Submissions made while GitHub is down are retried every minute.
		opts.Sink, opts.SyncInterval = sink, time.Minute
	}
	return opts, nil
}

// loadBoltFeedback returns the pooled bbolt store and its pool key.
func (c *FeedbackConfig) loadBoltFeedback(repl *caddy.Replacer, opts feedback.Options) (feedback.Submitter, string, error) {
	path := repl.ReplaceAll(c.Path, "")
	if path == "" {
		path = "data/feedback.db"
	}
	key := "feedback:" + path
	v, _, err := stores.LoadOrNew(key, func() (caddy.Destructor, error) {
		s, err := feedback.Open(path, opts)
		return feedbackStore{s}, err
	})
	if err != nil {
		return nil, "", fmt.Errorf("feedback store %s: %w", path, err)
	}
	return v.(feedbackStore).Store, key, nil
}
