package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrationLock is the advisory lock key that serializes migrations: two
// gates starting together against an empty database would otherwise both
// try to create the tables. ("wikigate" in ASCII, as a number.)
const migrationLock int64 = 0x77696b6967617465

// migrations are applied in order, each once, in its own transaction with
// its version; never edit one that has shipped, append a new one.
var migrations = []string{
	1: `
CREATE SEQUENCE wikigate_feedback_seq;
CREATE TABLE wikigate_feedback_records (
	seq          bigint PRIMARY KEY,
	id           text NOT NULL UNIQUE,
	tool         text NOT NULL,
	dedupe_key   text NOT NULL,
	status       text NOT NULL,
	sync_pending boolean NOT NULL DEFAULT false,
	create_intent boolean NOT NULL DEFAULT false,
	sync_owner   text,
	sync_lease_until timestamptz,
	doc          jsonb NOT NULL
);
-- One open record per dedupe key and tool: concurrent first reports from
-- any number of gates merge instead of opening two.
CREATE UNIQUE INDEX wikigate_feedback_open ON wikigate_feedback_records (tool, dedupe_key) WHERE status = 'open';
CREATE INDEX wikigate_feedback_outbox ON wikigate_feedback_records (seq) WHERE sync_pending;
CREATE TABLE wikigate_feedback_idempotency (
	key        bytea PRIMARY KEY,
	body_hash  text NOT NULL,
	response   bytea,
	record_id  text,
	created    boolean NOT NULL DEFAULT false,
	expires_at timestamptz NOT NULL
);
CREATE INDEX wikigate_feedback_idempotency_expiry ON wikigate_feedback_idempotency (expires_at);
`,
}

// migrate brings the schema up to date under a session advisory lock, so
// a second gate starting at the same moment waits and then finds nothing
// left to do.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return err
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock) }()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS wikigate_schema_migrations (
		version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	var have int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM wikigate_schema_migrations").Scan(&have); err != nil {
		return err
	}
	for v := have + 1; v < len(migrations); v++ {
		if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO wikigate_schema_migrations (version) VALUES ($1)", v)
			return err
		}); err != nil {
			return fmt.Errorf("schema migration %d: %w", v, err)
		}
	}
	return nil
}
