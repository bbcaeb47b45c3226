package policies

import (
	"slices"
	"sync"
)

// memo remembers a few results of work keyed by the digest of everything
// the work read (a policy's files), in this process only, so that loading
// the same policy again does not redo it. The oldest entry goes past max.
type memo[V any] struct {
	mu   sync.Mutex
	max  int
	keys []string // oldest first
	vals map[string]V
}

func newMemo[V any](max int) *memo[V] {
	return &memo[V]{max: max, vals: make(map[string]V, max)}
}

func (m *memo[V]) get(key string) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vals[key]
	return v, ok
}

func (m *memo[V]) put(key string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.vals[key]; !ok {
		if len(m.keys) == m.max {
			delete(m.vals, m.keys[0])
			m.keys = slices.Delete(m.keys, 0, 1)
		}
		m.keys = append(m.keys, key)
	}
	m.vals[key] = v
}
