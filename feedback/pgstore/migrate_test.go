package pgstore

import (
	"context"
	"testing"

	"github.com/wikigate/wikigate/feedback"
)

// Two stores migrating one empty database at once (twoGates), and a third
// opening it later, apply each schema version exactly once.
func TestMigrationsApplyOnce(t *testing.T) {
	pg, a, _ := twoGates(t, feedback.Options{})
	open(t, pg, feedback.Options{})
	var versions, latest int
	err := a.pool.QueryRow(context.Background(), "SELECT count(*), max(version) FROM wikigate_schema_migrations").Scan(&versions, &latest)
	if err != nil || versions != len(migrations)-1 || latest != len(migrations)-1 {
		t.Fatalf("schema versions: %d rows, latest %d, err %v; want %d", versions, latest, err, len(migrations)-1)
	}
}
