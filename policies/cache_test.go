package policies

import (
	"fmt"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

func testDecision(i int) Decision {
	return Decision{
		Allow: true,
		Scope: protocol.Scope{
			Projects:     []string{"p"},
			Paths:        []string{fmt.Sprintf("publish/p/%d", i)},
			Version:      "main",
			ProjectPaths: map[string][]string{"p": {fmt.Sprintf("publish/p/%d", i)}},
			Datasets:     []string{"ds"},
		},
		Datasets: []Dataset{{ID: "ds", Project: "p", Version: "main", Status: "approved"}},
		Index:    "wiki_pages",
		Revision: "rev",
	}
}

func testKey(i int) cacheKey {
	in := Input{Tool: "search", Caller: Caller{Type: "agent", ID: fmt.Sprint(i)}}
	return keyFor("rev", &in)
}

func TestDecisionCacheStaysWithinItsSize(t *testing.T) {
	t.Parallel()
	const size = 64 << 10
	c := newDecisionCache(size)
	for i := range 10_000 {
		c.put(testKey(i), testDecision(i), nil)
	}
	total, entries := 0, 0
	for i := range c.shards {
		s := &c.shards[i]
		total += s.bytes
		entries += len(s.entries)
		if s.bytes > s.maxBytes {
			t.Errorf("shard %d holds %d bytes, over its %d", i, s.bytes, s.maxBytes)
		}
	}
	if total > size || entries == 0 || entries >= 10_000 {
		t.Fatalf("cache holds %d entries in %d bytes; want some, within %d bytes", entries, total, size)
	}
	if _, ok := c.get(testKey(0)); ok {
		t.Error("the oldest entry survived 10,000 newer ones")
	}
	if d, ok := c.get(testKey(9_999)); !ok || d.Scope.Paths[0] != "publish/p/9999" {
		t.Errorf("newest entry = %+v, %v", d, ok)
	}
}

func TestDecisionCacheKeepsRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := newDecisionCache(cacheShards * 4 * decisionSize(testDecision(0)))
	// Fill one shard's worth of keys that land in shard 0.
	var keys []cacheKey
	for i := 0; len(keys) < 5; i++ {
		if k := testKey(i); c.shard(k) == &c.shards[0] {
			keys = append(keys, k)
		}
	}
	for i, k := range keys[:4] {
		c.put(k, testDecision(i), nil)
	}
	c.get(keys[0]) // keys[0] is now the most recently used
	c.put(keys[4], testDecision(4), nil)
	if _, ok := c.get(keys[0]); !ok {
		t.Error("a recently used entry was evicted")
	}
	if _, ok := c.get(keys[1]); ok {
		t.Error("the least recently used entry was kept over the size")
	}
}

func TestDecisionCacheReturnsCopies(t *testing.T) {
	t.Parallel()
	c := newDecisionCache(0)
	key := testKey(1)
	d := testDecision(1)
	c.put(key, d, nil)
	d.Scope.Paths[0] = "changed after put"
	got, _ := c.get(key)
	got.Scope.Projects[0] = "changed after get"
	got.Datasets[0].ID = "changed after get"
	again, _ := c.get(key)
	if again.Scope.Paths[0] != "publish/p/1" || again.Scope.Projects[0] != "p" || again.Datasets[0].ID != "ds" {
		t.Errorf("cached decision changed through a caller's copy: %+v", again)
	}
}

// TestDecisionCacheCopiesProjectPaths: the map and its lists are shared
// references, so a shallow copy would let one caller widen another's scope.
func TestDecisionCacheCopiesProjectPaths(t *testing.T) {
	t.Parallel()
	c := newDecisionCache(0)
	key := testKey(1)
	d := testDecision(1)
	c.put(key, d, nil)
	d.Scope.ProjectPaths["p"][0] = "publish"
	d.Scope.Datasets[0] = "other after put"
	got, _ := c.get(key)
	got.Scope.ProjectPaths["p"] = append(got.Scope.ProjectPaths["p"][:0], "publish")
	got.Scope.ProjectPaths["q"] = []string{"publish/q"}
	got.Scope.Datasets[0] = "other after get"
	again, _ := c.get(key)
	if len(again.Scope.ProjectPaths) != 1 || again.Scope.ProjectPaths["p"][0] != "publish/p/1" || again.Scope.Datasets[0] != "ds" {
		t.Errorf("cached scope changed through a caller's copy: %+v", again.Scope)
	}
}

func TestDecisionCacheDisabled(t *testing.T) {
	t.Parallel()
	if newDecisionCache(-1) != nil {
		t.Error("a negative size did not disable the cache")
	}
}
