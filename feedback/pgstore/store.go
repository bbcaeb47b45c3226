// Package pgstore keeps feedback records, improvement tasks, idempotency
// keys and the GitHub outbox in PostgreSQL, so any number of gates share
// them. The semantics are those of the bbolt store (feedback.Store); what
// bbolt got from running one writer at a time, PostgreSQL gets from its
// constraints and row locks: a unique index on the open record of a dedupe
// key, INSERT … ON CONFLICT on idempotency keys, SELECT … FOR UPDATE while
// merging, FOR UPDATE SKIP LOCKED to hand each outbox record to one gate.
//
// It uses github.com/jackc/pgx/v5 and its pool (pgxpool): the maintained,
// pure-Go PostgreSQL driver, whose pool reconnects on its own after an
// outage, so a gate needs no restart when the database comes back.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/feedback"
)

// DefaultTimeout bounds each store operation, so a database that stopped
// answering turns into ErrUnavailable instead of a hung request.
const DefaultTimeout = 5 * time.Second

// Config configures a Store.
type Config struct {
	DSN      string // postgres://user:password@host:port/db?sslmode=…
	MaxConns int32  // pool size per gate; default pgx's (max(4, CPUs))
	Timeout  time.Duration
	// Owner names this gate in outbox leases; default a random value.
	Owner   string
	Options feedback.Options // Now, Sink, Logger, IdempotencyTTL, SyncInterval
}

// Store is the PostgreSQL feedback store. It is safe for concurrent use,
// from any number of processes.
type Store struct {
	pool    *pgxpool.Pool
	now     func() time.Time
	sink    feedback.Sink
	log     *zap.Logger
	idemTTL time.Duration
	timeout time.Duration
	owner   string

	// sync mirrors committed records to the sink; nil without a sink.
	sync *feedback.SyncLoop
}

// Open connects, applies the schema migrations and starts the outbox loop
// when there is a sink. The database must be reachable at start: a gate
// configured for PostgreSQL should not come up with no store.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	pc, err := pgxpool.ParseConfig(cfg.DSN)
	if err != nil {
		return nil, errors.New("feedback postgres: the dsn does not parse") // never quote it: it may hold a password
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	s := newStore(cfg)
	pc.ConnConfig.ConnectTimeout = s.timeout
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("feedback postgres: %w", err)
	}
	mctx, cancel := context.WithTimeout(ctx, 4*s.timeout)
	defer cancel()
	if err := migrate(mctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("feedback postgres: %w", err)
	}
	s.pool = pool
	s.startSyncLoop(cfg.Options.SyncInterval)
	return s, nil
}

func newStore(cfg Config) *Store {
	o := cfg.Options
	s := &Store{now: o.Now, sink: o.Sink, log: o.Logger, idemTTL: o.IdempotencyTTL, timeout: cfg.Timeout, owner: cfg.Owner}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = zap.NewNop()
	}
	if s.idemTTL <= 0 {
		s.idemTTL = feedback.DefaultIdempotencyTTL
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.owner == "" {
		s.owner = randomOwner()
	}
	return s
}

// Close stops the outbox loop (a sink call under way finishes and is
// stored first) and closes the pool.
func (s *Store) Close() error {
	s.sync.Stop()
	s.pool.Close()
	return nil
}

// Health is one round trip to PostgreSQL, for /healthz.
func (s *Store) Health(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, "SELECT 1")
	return err
}

// unavailable marks err, which came from a database call, as the
// database being out of reach (connection refused or cut, server shutting
// down, timeout) so the gateway answers 503. Errors PostgreSQL reports
// about a statement stay as they are: those are bugs, not outages.
func unavailable(err error) error {
	if err == nil || errors.Is(err, feedback.ErrUnavailable) || errors.Is(err, feedback.ErrIdempotencyConflict) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:2] {
		case "08", "57", "53": // connection exception, operator intervention, insufficient resources
		default:
			return err
		}
	}
	return fmt.Errorf("%w: %w", feedback.ErrUnavailable, err)
}
