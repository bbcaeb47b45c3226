package quota

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// MemoryTokens keeps token budgets in this process: one gate's, lost on
// restart.
type MemoryTokens struct {
	now func() time.Time

	mu      sync.Mutex
	windows map[string]*tokenWindow
}

type tokenWindow struct {
	used int64
	end  time.Time
}

// NewMemoryTokens returns an empty in-process token store.
func NewMemoryTokens() *MemoryTokens {
	return &MemoryTokens{now: time.Now, windows: map[string]*tokenWindow{}}
}

// CheckTokens implements TokenStore.
func (m *MemoryTokens) CheckTokens(_ context.Context, key string, b TokenBudget) (TokenResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	w, ok := m.windows[windowKey(key, b)]
	if !ok || !now.Before(w.end) {
		return checkResult(b, 0, 0), nil
	}
	return checkResult(b, w.used, w.end.Sub(now)), nil
}

// ChargeTokens implements TokenStore.
func (m *MemoryTokens) ChargeTokens(_ context.Context, key string, b TokenBudget, n int64) error {
	if n <= 0 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	k := windowKey(key, b)
	w, ok := m.windows[k]
	if !ok || !now.Before(w.end) {
		if !ok && len(m.windows) >= maxKeys {
			m.forgetEnded(now)
		}
		w = &tokenWindow{end: now.Add(b.Window)}
		m.windows[k] = w
	}
	w.used += n
	return nil
}

// forgetEnded drops the windows that are over: forgetting them changes
// nothing for their callers.
func (m *MemoryTokens) forgetEnded(now time.Time) {
	for k, w := range m.windows {
		if !now.Before(w.end) {
			delete(m.windows, k)
		}
	}
}

// windowKey is key's entry for b: a budget whose window the policy
// changed starts afresh under its own entry.
func windowKey(key string, b TokenBudget) string {
	return key + "|" + strconv.FormatInt(int64(b.Window/time.Millisecond), 10)
}
