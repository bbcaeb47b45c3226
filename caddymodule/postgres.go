package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/wikigate/wikigate/feedback"
	"github.com/wikigate/wikigate/feedback/pgstore"
)

// PostgresConfig is the shared `postgres` block: the database every store
// set to `store postgres` uses (feedback, improvement tasks and their
// idempotency keys). The DSN usually holds a password: write it as
// {env.NAME}, expanded at provision time, so it never appears in the
// adapted JSON.
type PostgresConfig struct {
	// DSN is postgres://user:password@host:port/db?sslmode=verify-full
	// (or a key=value string).
	DSN string `json:"dsn,omitempty"`
	// MaxConns is the most connections per gate. Default pgx's: 4 or the
	// number of CPUs, whichever is more.
	MaxConns int `json:"max_conns,omitempty"`
}

func (c *PostgresConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "postgres", map[string]func() error{
		"dsn":       func() error { return oneArg(d, &c.DSN) },
		"max_conns": func() error { return intArg(d, &c.MaxConns, 1, 10000) },
	})
}

type pgFeedbackStore struct{ *pgstore.Store }

func (s pgFeedbackStore) Destruct() error { return s.Close() }

// loadPostgresFeedback returns the pooled PostgreSQL feedback store and its
// pool key: a hash of the DSN and sink, so a reload keeps the connections
// and the pool never holds the password in clear.
func (c *FeedbackConfig) loadPostgresFeedback(pc *PostgresConfig, repl *caddy.Replacer, opts feedback.Options) (feedback.Submitter, string, error) {
	if pc == nil || pc.DSN == "" {
		return nil, "", fmt.Errorf("feedback: store postgres needs a postgres block with a dsn in the wikigate directive")
	}
	if c.Path != "" {
		return nil, "", fmt.Errorf("feedback: path is the bolt file; with store postgres, leave it out")
	}
	cfg := pgstore.Config{DSN: repl.ReplaceAll(pc.DSN, ""), MaxConns: int32(pc.MaxConns), Options: opts}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|%d|%#v", cfg.DSN, cfg.MaxConns, c.GitHub))
	key := "feedback:postgres:" + hex.EncodeToString(sum[:])
	v, _, err := stores.LoadOrNew(key, func() (caddy.Destructor, error) {
		s, err := pgstore.Open(context.Background(), cfg)
		return pgFeedbackStore{s}, err
	})
	if err != nil {
		return nil, "", fmt.Errorf("feedback store: %w", err)
	}
	return v.(pgFeedbackStore).Store, key, nil
}
