package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/wikigate/wikigate/feedback"
)

// Get returns the record with id, or feedback.ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (feedback.Record, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var doc []byte
	err := s.pool.QueryRow(ctx, `SELECT doc FROM wikigate_feedback_records WHERE id = $1`, id).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return feedback.Record{}, feedback.ErrNotFound
	}
	if err != nil {
		return feedback.Record{}, unavailable(err)
	}
	sr, err := decode(doc)
	if err != nil {
		return feedback.Record{}, err
	}
	return sr.Public(), nil
}

// List returns every record of tool (all tools when tool is ""), oldest
// first.
func (s *Store) List(ctx context.Context, tool string) ([]feedback.Record, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT doc FROM wikigate_feedback_records WHERE $1 = '' OR tool = $1 ORDER BY seq`, tool)
	if err != nil {
		return nil, unavailable(err)
	}
	docs, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, unavailable(err)
	}
	out := make([]feedback.Record, 0, len(docs))
	for _, doc := range docs {
		sr, err := decode(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, sr.Public())
	}
	return out, nil
}

// CloseRecord closes the record with id: the next occurrence of its dedupe
// key opens a new record. Closing a closed record is a no-op.
func (s *Store) CloseRecord(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var seq int64
		var doc []byte
		err := tx.QueryRow(ctx, `SELECT seq, doc FROM wikigate_feedback_records WHERE id = $1 FOR UPDATE`, id).Scan(&seq, &doc)
		if errors.Is(err, pgx.ErrNoRows) {
			return feedback.ErrNotFound
		}
		if err != nil {
			return err
		}
		sr, err := decode(doc)
		if err != nil || sr.Status == feedback.StatusClosed {
			return err
		}
		sr.Status = feedback.StatusClosed
		return saveRecord(ctx, tx, seq, sr)
	})
	if errors.Is(err, feedback.ErrNotFound) {
		return err
	}
	return unavailable(err)
}
