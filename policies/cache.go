package policies

import (
	"crypto/sha256"
	"slices"
	"sync"

	"github.com/wikigate/wikigate/protocol"
)

// DefaultCacheSize bounds the decision cache when Options.CacheSize is 0.
// An entry of the shipped policy takes about 600 bytes, so this holds some
// 25,000 distinct calls.
const DefaultCacheSize = 16 << 20

// cacheShards spreads the cache over independent locks; keys are SHA-256
// sums, so their first byte picks a shard uniformly.
const cacheShards = 16

// entryOverhead approximates what an entry costs beyond its strings: the
// entry, its map slot and the slice headers of its decision.
const entryOverhead = 256

// A decision depends only on the policy files and the input, so a loaded
// policy can remember its decisions: agents repeat the same call with the
// same scope, and a repeated call then costs a hash and a lookup instead of
// an evaluation. The cache belongs to one loaded policy (prepared): a reload
// builds a new one, so no decision outlives the policy that made it. Keys
// are SHA-256 over the policy revision and the canonical input
// (Input.appendKey), never the input itself; values are decisions,
// allows and denials alike (errors are never cached). It is a
// least-recently-used cache bounded by an estimate of its bytes.
type decisionCache struct {
	shards [cacheShards]cacheShard
}

type cacheKey [sha256.Size]byte

type cacheShard struct {
	mu       sync.Mutex
	entries  map[cacheKey]*cacheEntry
	newest   *cacheEntry // most recently used; newest.older is the next
	oldest   *cacheEntry
	bytes    int
	maxBytes int
}

type cacheEntry struct {
	key          cacheKey
	decision     Decision    // never modified once stored
	call         *cachedCall // what was decided, for warming the next revision's cache; nil: unknown
	size         int
	newer, older *cacheEntry
}

// cachedCall is the call a cached decision answered: its input (the
// caller's own copy) and whether it was the tool gate's.
type cachedCall struct {
	input Input
	tool  bool
}

// newDecisionCache returns a cache of about maxBytes, or nil (no cache)
// when maxBytes is negative.
func newDecisionCache(maxBytes int) *decisionCache {
	if maxBytes < 0 {
		return nil
	}
	if maxBytes == 0 {
		maxBytes = DefaultCacheSize
	}
	c := &decisionCache{}
	for i := range c.shards {
		c.shards[i] = cacheShard{entries: map[cacheKey]*cacheEntry{}, maxBytes: maxBytes / cacheShards}
	}
	return c
}

// keyFor hashes the policy revision with the canonical input.
func keyFor(revision string, in *Input) cacheKey {
	var buf [512]byte
	b := appendString(buf[:0], revision)
	return sha256.Sum256(in.appendKey(b))
}

// get returns a copy of the cached decision for key, so a caller that
// edits its decision cannot change what later callers get.
func (c *decisionCache) get(key cacheKey) (Decision, bool) {
	s := c.shard(key)
	s.mu.Lock()
	e, ok := s.entries[key]
	if ok {
		s.unlink(e)
		s.pushNewest(e)
	}
	s.mu.Unlock()
	if !ok {
		return Decision{}, false
	}
	return cloneDecision(e.decision), true
}

// put stores a copy of d (and of call, when known), evicting the least
// recently used entries of the shard until it fits. A decision bigger than
// a shard is not stored.
func (c *decisionCache) put(key cacheKey, d Decision, call *cachedCall) {
	e := &cacheEntry{key: key, decision: cloneDecision(d), size: decisionSize(d)}
	if call != nil {
		e.call = &cachedCall{input: cloneInput(call.input), tool: call.tool}
		e.size += inputSize(&call.input)
	}
	s := c.shard(key)
	if e.size > s.maxBytes {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.entries[key]; ok {
		s.remove(old)
	}
	for s.bytes+e.size > s.maxBytes && s.oldest != nil {
		s.remove(s.oldest)
	}
	s.entries[key] = e
	s.pushNewest(e)
	s.bytes += e.size
}

// recent lists the calls of up to n of the most recently used entries,
// newest first within each shard (shards take an even share of n).
func (c *decisionCache) recent(n int) []cachedCall {
	per := max(n/cacheShards, 1)
	calls := make([]cachedCall, 0, min(n, per*cacheShards))
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		taken := 0
		for e := s.newest; e != nil && taken < per; e = e.older {
			if e.call != nil {
				calls = append(calls, *e.call)
				taken++
			}
		}
		s.mu.Unlock()
	}
	return calls
}

func (c *decisionCache) shard(key cacheKey) *cacheShard {
	return &c.shards[int(key[0])%cacheShards]
}

func (s *cacheShard) remove(e *cacheEntry) {
	s.unlink(e)
	delete(s.entries, e.key)
	s.bytes -= e.size
}

func (s *cacheShard) unlink(e *cacheEntry) {
	if e.newer != nil {
		e.newer.older = e.older
	} else {
		s.newest = e.older
	}
	if e.older != nil {
		e.older.newer = e.newer
	} else {
		s.oldest = e.newer
	}
	e.newer, e.older = nil, nil
}

func (s *cacheShard) pushNewest(e *cacheEntry) {
	e.older = s.newest
	if s.newest != nil {
		s.newest.newer = e
	}
	s.newest = e
	if s.oldest == nil {
		s.oldest = e
	}
}

// cloneDecision deep-copies every slice and map of d: a Decision is a value,
// but its slices and maps are shared references.
func cloneDecision(d Decision) Decision {
	d.Scope = d.Scope.Clone()
	d.Datasets = slices.Clone(d.Datasets)
	d.WriteTools = slices.Clone(d.WriteTools)
	return d
}

// cloneInput deep-copies in's slices and pointers, so the cache keeps a call
// that no caller can change afterwards.
func cloneInput(in Input) Input {
	in.Caller.Roles = slices.Clone(in.Caller.Roles)
	in.Pages = slices.Clone(in.Pages)
	if in.Scope != nil {
		s := in.Scope.Clone()
		in.Scope = &s
	}
	if in.Page != nil {
		p := *in.Page
		in.Page = &p
	}
	if in.Session != nil {
		s := SessionInput{Scope: in.Session.Scope.Clone()}
		in.Session = &s
	}
	return in
}

// inputSize estimates the bytes a kept input holds.
func inputSize(in *Input) int {
	n := 128 + len(in.Endpoint) + len(in.Tool) + len(in.Action) + len(in.SiteMode) + len(in.Caller.ID) + len(in.Caller.Credential)
	lists := [][]string{in.Caller.Roles, in.Pages}
	for _, s := range []*protocol.Scope{in.Scope, sessionScope(in)} {
		if s != nil {
			lists = append(lists, s.Projects, s.Paths)
			n += 64 + len(s.Version)
		}
	}
	if in.Page != nil {
		n += 64 + len(in.Page.Path) + len(in.Page.URL) + len(in.Page.Version)
	}
	for _, ss := range lists {
		for _, s := range ss {
			n += len(s) + 16
		}
	}
	return n
}

func sessionScope(in *Input) *protocol.Scope {
	if in.Session == nil {
		return nil
	}
	return &in.Session.Scope
}

// decisionSize estimates the bytes an entry holds.
func decisionSize(d Decision) int {
	n := entryOverhead + len(d.Code) + len(d.Reason) + len(d.Index) + len(d.Revision) + len(d.Scope.Version)
	lists := [][]string{d.Scope.Projects, d.Scope.Paths, d.Scope.Datasets, d.WriteTools}
	for p, paths := range d.Scope.ProjectPaths {
		n += len(p) + 64
		lists = append(lists, paths)
	}
	for _, ss := range lists {
		for _, s := range ss {
			n += len(s) + 16
		}
	}
	for _, ds := range d.Datasets {
		n += len(ds.ID) + len(ds.Project) + len(ds.Version) + len(ds.Status) + 64
	}
	return n
}
