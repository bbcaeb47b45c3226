package identity

import (
	"encoding/json"
	"maps"
	"os"
	"sync"
	"time"
)

// usageFlushPeriod is how stale a key's persisted last-used time may get:
// a key in constant use costs one small file write per period, not one per
// call, and the key file itself is never written by the server (the CLI
// owns it, and a server write could undo a revoke made at the same time).
const usageFlushPeriod = time.Minute

// keyUsage remembers when each API key was last used. The exact times are
// kept in memory; they are persisted, throttled, to a file beside the key
// file (<key file>.used.json), which `wikigate key list` reads. Several
// gates sharing one key file merge their times (the latest wins).
type keyUsage struct {
	path string

	mu        sync.Mutex
	lastUsed  map[string]time.Time // prefix → last successful use
	persisted map[string]time.Time // what the file held after our last write
	flushing  bool
	writes    sync.WaitGroup // the background write, if one runs
}

func newKeyUsage(keyFile string) *keyUsage {
	return &keyUsage{path: keyFile + ".used.json", lastUsed: map[string]time.Time{}, persisted: map[string]time.Time{}}
}

// used records a successful use of prefix at now, and starts a write in
// the background when the file is more than usageFlushPeriod behind (or
// has never seen this key). It never blocks the call on the disk.
func (u *keyUsage) used(prefix string, now time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if now.After(u.lastUsed[prefix]) {
		u.lastUsed[prefix] = now
	}
	last, known := u.persisted[prefix]
	if u.flushing || (known && now.Sub(last) < usageFlushPeriod) {
		return
	}
	u.flushing = true
	u.writes.Add(1)
	go u.flush()
}

// flush writes the in-memory times, merged with the file's. Failures are
// retried on a later use: last-used times are for operators, never for
// authentication.
func (u *keyUsage) flush() {
	defer u.writes.Done()
	u.mu.Lock()
	snapshot := maps.Clone(u.lastUsed)
	u.mu.Unlock()
	merged := mergeLatest(readUsageFile(u.path), snapshot)
	err := writeUsageFile(u.path, merged)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.flushing = false
	if err == nil {
		u.persisted = merged
	}
}

// times is the latest known use of each key: the file's, or ours when newer.
func (u *keyUsage) times() map[string]time.Time {
	u.mu.Lock()
	mine := maps.Clone(u.lastUsed)
	u.mu.Unlock()
	return mergeLatest(readUsageFile(u.path), mine)
}

func mergeLatest(a, b map[string]time.Time) map[string]time.Time {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]time.Time{}
	}
	for k, t := range b {
		if t.After(out[k]) {
			out[k] = t
		}
	}
	return out
}

// readUsageFile reads prefix → last-used time; a missing or unreadable
// file is no times (it is rewritten on the next flush).
func readUsageFile(path string) map[string]time.Time {
	data, err := os.ReadFile(path)
	if err != nil {
		return map[string]time.Time{}
	}
	var doc struct {
		LastUsed map[string]time.Time `json:"lastUsed"`
	}
	if json.Unmarshal(data, &doc) != nil || doc.LastUsed == nil {
		return map[string]time.Time{}
	}
	return doc.LastUsed
}

func writeUsageFile(path string, times map[string]time.Time) error {
	data, err := json.MarshalIndent(struct {
		LastUsed map[string]time.Time `json:"lastUsed"`
	}{times}, "", "  ")
	if err != nil {
		return err
	}
	_, err = writeFileAtomic(path, append(data, '\n'))
	return err
}
