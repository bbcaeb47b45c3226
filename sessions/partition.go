package sessions

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/allegro/bigcache/v3"
)

// entryOverhead is what bigcache adds to a stored value (timestamp, hash,
// key length) on top of the key itself.
const entryOverhead = 18

// partition is one bigcache of sessions that knows how much it holds. The
// store keeps signed-in callers' sessions and anonymous ones in separate
// partitions, so filling one can only ever evict from that one.
type partition struct {
	cache    *bigcache.BigCache
	maxEntry int          // largest encoded session accepted
	live     atomic.Int64 // sessions stored and not yet removed by bigcache
	bytes    atomic.Int64 // what they take in bigcache
}

// newPartition builds a partition of maxBytes (whole MiB) in shards shards
// whose entries live for lifeWindow after their last write.
func newPartition(maxBytes, shards int, lifeWindow time.Duration) (*partition, error) {
	p := &partition{maxEntry: shardBytes(maxBytes, shards) / 4}
	cache, err := bigcache.New(context.Background(), bigcache.Config{
		Shards:             shards,
		LifeWindow:         lifeWindow,
		CleanWindow:        cleanWindow,
		MaxEntrySize:       typicalEntryBytes,
		HardMaxCacheSize:   maxBytes / mib,
		Verbose:            false,
		OnRemoveWithReason: p.removed,
	})
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	p.cache = cache
	return p, nil
}

// removed is bigcache's callback for an entry it drops (expired or evicted
// for room). It runs under a shard lock, so it only counts. An entry
// overwritten by an update is not reported, which is why put counts the
// difference.
func (p *partition) removed(key string, entry []byte, _ bigcache.RemoveReason) {
	p.live.Add(-1)
	p.bytes.Add(-int64(stored(key, entry)))
}

// stored is what an entry costs in bigcache.
func stored(key string, data []byte) int { return entryOverhead + len(key) + len(data) }

// get returns the stored bytes of id, or ErrNotFound.
func (p *partition) get(id string) ([]byte, error) {
	data, err := p.cache.Get(id)
	if errors.Is(err, bigcache.ErrEntryNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	return data, nil
}

// put stores data under id. previous is the size of the version it
// replaces (0 for a new session), so the counts follow the update.
func (p *partition) put(id string, data []byte, previous int) error {
	// bigcache evicts a whole shard trying to fit an entry that cannot fit,
	// and may do so for entries above a quarter of a shard while its buffer
	// is still growing; refuse those instead.
	if len(data) > p.maxEntry {
		return fmt.Errorf("session store: session of %d bytes exceeds the %d byte limit", len(data), p.maxEntry)
	}
	if err := p.cache.Set(id, data); err != nil {
		return fmt.Errorf("session store: storing session failed (%d bytes): %w", len(data), err)
	}
	size := stored(id, data)
	if previous == 0 {
		p.live.Add(1)
	} else {
		size -= previous
	}
	p.bytes.Add(int64(size))
	return nil
}

// holds is how many sessions and bytes the partition holds now. A session
// evicted in the instant between an update's read and write is counted
// out and not back in, so the counts can only err low; never below zero.
func (p *partition) holds() (sessions, bytes int64) {
	return max(p.live.Load(), 0), max(p.bytes.Load(), 0)
}

func (p *partition) close() error { return p.cache.Close() }

// shardsFor is the largest power of two that leaves each shard
// minShardBytes of maxBytes.
func shardsFor(maxBytes int) int {
	return 1 << (bits.Len(uint(min(maxShards, maxBytes/minShardBytes))) - 1)
}

// shardBytes is the memory of one bigcache shard (HardMaxCacheSize is in
// whole MiB).
func shardBytes(maxBytes, shards int) int {
	return (maxBytes / mib) * mib / shards
}
