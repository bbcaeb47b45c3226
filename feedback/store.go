package feedback

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.uber.org/zap"
)

// Defaults of Options.
const (
	DefaultIdempotencyTTL = 24 * time.Hour
	DefaultLockTimeout    = time.Second
	DefaultSyncInterval   = time.Minute
)

// Bucket names. records: ID → storedRecord. open: tool NUL dedupeKey → ID
// of the one open record. idem / idemExpiry: idempotency entries and their
// expiry index. outbox: IDs of records with occurrences not yet synced.
var (
	bucketRecords    = []byte("records")
	bucketOpen       = []byte("open")
	bucketIdem       = []byte("idem")
	bucketIdemExpiry = []byte("idem_expiry")
	bucketOutbox     = []byte("outbox")
)

// Options configure a Store. The zero value works: wall clock, no sink,
// no logging, 24h idempotency, 1s lock wait.
type Options struct {
	Now            func() time.Time
	Sink           Sink // optional: where records are mirrored (GitHub Issues)
	Logger         *zap.Logger
	IdempotencyTTL time.Duration // how long a retry replays; default 24h
	LockTimeout    time.Duration // how long Open waits for the file lock; default 1s
	// SyncInterval is how often, with a Sink, the background sync loop
	// retries what is still pending, so a sink outage heals without a
	// caller; default 1 minute. The loop also runs right after Open and
	// whenever Submit commits something new.
	SyncInterval time.Duration
}

// Store is the durable feedback store. It is safe for concurrent use; bbolt
// serializes writers, which is what makes merging race-free.
type Store struct {
	db      *bolt.DB
	now     func() time.Time
	sink    Sink
	log     *zap.Logger
	idemTTL time.Duration

	syncMu sync.Mutex // one sink conversation at a time: two would both create an issue

	// sync mirrors committed records to the sink; nil without a sink.
	sync *SyncLoop
}

// Open opens (creating if needed, with its directory) the bbolt file at
// path. bbolt holds an exclusive file lock: a second process opening the
// same file fails after LockTimeout instead of hanging.
func Open(path string, o Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("feedback store path is empty")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating feedback store directory: %w", err)
	}
	s := newStore(o)
	timeout := o.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("opening feedback store %s: file is locked, is another wikigate process using it? (%w)", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("opening feedback store %s: %w", path, err)
	}
	s.db = db
	if err := db.Update(createBuckets); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("initializing feedback store: %w", err)
	}
	s.startSyncLoop(o.SyncInterval)
	return s, nil
}

func newStore(o Options) *Store {
	s := &Store{now: o.Now, sink: o.Sink, log: o.Logger, idemTTL: o.IdempotencyTTL}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = zap.NewNop()
	}
	if s.idemTTL <= 0 {
		s.idemTTL = DefaultIdempotencyTTL
	}
	return s
}

func createBuckets(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketRecords, bucketOpen, bucketIdem, bucketIdemExpiry, bucketOutbox} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// Close stops background syncing and closes the file, releasing its lock.
// A sink call already under way is finished and stored first (at most one
// call, bounded by the sink's own timeout), so closing never forgets an
// issue that was just created.
func (s *Store) Close() error {
	s.sync.Stop()
	return s.db.Close()
}

// Get returns the record with id, or ErrNotFound.
func (s *Store) Get(id string) (Record, error) {
	var rec Record
	err := s.db.View(func(tx *bolt.Tx) error {
		sr, err := loadRecord(tx, id)
		rec = sr.publicRecord()
		return err
	})
	return rec, err
}

// FindOpen returns the open record of tool with dedupeKey, if any.
func (s *Store) FindOpen(tool, dedupeKey string) (Record, bool, error) {
	var rec Record
	var found bool
	err := s.db.View(func(tx *bolt.Tx) error {
		sr, err := findOpenTx(tx, tool, dedupeKey)
		rec, found = sr.publicRecord(), err == nil && sr != nil
		return err
	})
	return rec, found, err
}

// List returns every record of tool (all tools when tool is ""), oldest
// first.
func (s *Store) List(tool string) ([]Record, error) {
	var out []Record
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketRecords).ForEach(func(_, v []byte) error {
			var sr storedRecord
			if err := json.Unmarshal(v, &sr); err != nil {
				return fmt.Errorf("decoding feedback record: %w", err)
			}
			if tool == "" || sr.Tool == tool {
				out = append(out, sr.publicRecord())
			}
			return nil
		})
	})
	slices.SortFunc(out, func(a, b Record) int {
		if c := a.FirstSeenAt.Compare(b.FirstSeenAt); c != 0 {
			return c
		}
		return compareIDs(a.ID, b.ID)
	})
	return out, err
}

// CloseRecord closes the record with id: the next occurrence of its dedupe
// key opens a new record. Closing a closed record is a no-op.
func (s *Store) CloseRecord(id string) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		sr, err := loadRecord(tx, id)
		if err != nil {
			return err
		}
		if sr.Status == StatusClosed {
			return nil
		}
		sr.Status = StatusClosed
		if err := unindexOpen(tx, sr); err != nil {
			return err
		}
		return saveRecord(tx, sr)
	})
}

// publicRecord is the copy handed to callers.
func (sr *storedRecord) publicRecord() Record {
	if sr == nil {
		return Record{}
	}
	rec := sr.Record.clone()
	rec.SyncPending = len(sr.Pending) > 0
	return rec
}

func loadRecord(tx *bolt.Tx, id string) (*storedRecord, error) {
	v := tx.Bucket(bucketRecords).Get([]byte(id))
	if v == nil {
		return nil, ErrNotFound
	}
	sr := new(storedRecord)
	if err := json.Unmarshal(v, sr); err != nil {
		return nil, fmt.Errorf("decoding feedback record: %w", err)
	}
	return sr, nil
}

// saveRecord writes sr and keeps the outbox index in step with its pending
// occurrences.
func saveRecord(tx *bolt.Tx, sr *storedRecord) error {
	sr.SyncPending = len(sr.Pending) > 0
	v, err := json.Marshal(sr)
	if err != nil {
		return fmt.Errorf("encoding feedback record: %w", err)
	}
	if err := tx.Bucket(bucketRecords).Put([]byte(sr.ID), v); err != nil {
		return err
	}
	outbox := tx.Bucket(bucketOutbox)
	if sr.SyncPending {
		return outbox.Put([]byte(sr.ID), nil)
	}
	return outbox.Delete([]byte(sr.ID))
}

// unindexOpen removes sr from the open index if it is the indexed one.
func unindexOpen(tx *bolt.Tx, sr *storedRecord) error {
	b := tx.Bucket(bucketOpen)
	k := openKey(sr.Tool, sr.DedupeKey)
	if string(b.Get(k)) != sr.ID {
		return nil
	}
	return b.Delete(k)
}

// openKey joins tool and key with a NUL, which neither can contain.
func openKey(tool, dedupeKey string) []byte {
	return []byte(tool + "\x00" + dedupeKey)
}
