package caddymodule

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync/atomic"
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

// validateOnly is set for `wikigate validate` and `wikigate adapt
// --validate` (ValidateWithoutStores): Provision then checks the store
// settings but opens no store, so validating beside a running gate neither
// waits on its bbolt lock nor creates a database, and connects to no
// PostgreSQL. (Redis clients connect lazily, on their first command.)
var validateOnly atomic.Bool

// ValidateWithoutStores makes every later Provision in this process check
// store settings without opening the stores, until restore is called. Only
// for a process that validates a configuration and exits (and tests).
func ValidateWithoutStores() (restore func()) {
	validateOnly.Store(true)
	return func() { validateOnly.Store(false) }
}

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

// sessionStore is the pooled memory store and the settings it was sized
// for: one per process, so a reload that changes them is refused instead
// of starting an empty store (which would drop every live session).
type sessionStore struct {
	*sessions.MemoryStore
	cfg memorySizing
}

// memorySizing is what a memory session store is built with.
type memorySizing struct {
	TTL                                      time.Duration
	MaxBytes, AnonymousBytes, AnonymousCount int
}

func (s sessionStore) Destruct() error { return s.Close() }

// feedbackStore is a pooled bbolt store and a hash of the GitHub sink it
// was opened with: the file stays open across reloads, so a reload that
// changes the sink is refused rather than silently ignored.
type feedbackStore struct {
	*feedback.Store
	sink string
}

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
	const key = "sessions:memory"
	sizing := memorySizing{cfg.TTL, cfg.MaxBytes, cfg.AnonymousMaxBytes, cfg.AnonymousMaxSessions}
	v, loaded, err := stores.LoadOrNew(key, func() (caddy.Destructor, error) {
		s, err := sessions.NewMemoryStore(cfg)
		return sessionStore{s, sizing}, err
	})
	if err != nil {
		return nil, "", fmt.Errorf("session store: %w", err)
	}
	live := v.(sessionStore)
	if loaded && live.cfg != sizing {
		_, _ = stores.Delete(key)
		return nil, "", fmt.Errorf("sessions: ttl, max_memory, anonymous_memory or anonymous_sessions differ from the running session store's "+
			"(ttl %s, max_memory %d, anonymous_memory %d, anonymous_sessions %d; 0 is the default); a reload cannot resize it without dropping every live session: "+
			"keep the running values, or restart the gate to apply the new ones (wikigate handlers in one config share these settings)",
			live.cfg.TTL, live.cfg.MaxBytes, live.cfg.AnonymousBytes, live.cfg.AnonymousCount)
	}
	return live.MemoryStore, key, nil
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
	if validateOnly.Load() {
		return nil, "", c.checkStore(pc)
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

// checkStore is what validation checks of the store settings without
// opening the store.
func (c *FeedbackConfig) checkStore(pc *PostgresConfig) error {
	switch c.Store {
	case "", "bolt":
		return nil
	case "postgres":
		if pc == nil || pc.DSN == "" {
			return fmt.Errorf("feedback: store postgres needs a postgres block with a dsn in the wikigate directive")
		}
		if c.Path != "" {
			return fmt.Errorf("feedback: path is the bolt file; with store postgres, leave it out")
		}
		return nil
	}
	return fmt.Errorf("feedback: store must be bolt or postgres, not %q", c.Store)
}

// loadBoltFeedback returns the pooled bbolt store and its pool key.
func (c *FeedbackConfig) loadBoltFeedback(repl *caddy.Replacer, opts feedback.Options) (feedback.Submitter, string, error) {
	path := repl.ReplaceAll(c.Path, "")
	if path == "" {
		path = "data/feedback.db"
	}
	key := "feedback:" + path
	sink := c.sinkFingerprint(repl)
	v, loaded, err := stores.LoadOrNew(key, func() (caddy.Destructor, error) {
		s, err := feedback.Open(path, opts)
		return feedbackStore{s, sink}, err
	})
	if err != nil {
		return nil, "", fmt.Errorf("feedback store %s: %w", path, err)
	}
	if live := v.(feedbackStore); !loaded || live.sink == sink {
		return live.Store, key, nil
	}
	_, _ = stores.Delete(key)
	return nil, "", fmt.Errorf("feedback: the github block changed, but the feedback store %s stays open across reloads with the GitHub sink it was opened with; "+
		"restart the gate to apply the change (a reload with the running github block works)", path)
}

// sinkFingerprint identifies the GitHub sink settings, placeholders
// expanded, as a hash (the token is never kept in clear).
func (c *FeedbackConfig) sinkFingerprint(repl *caddy.Replacer) string {
	if c.GitHub == nil {
		return ""
	}
	g := c.GitHub
	sum := sha256.Sum256(fmt.Appendf(nil, "%q|%q|%q|%q", repl.ReplaceAll(g.Repo, ""), repl.ReplaceAll(g.Token, ""),
		repl.ReplaceAll(g.APIURL, ""), g.Labels))
	return hex.EncodeToString(sum[:])
}
