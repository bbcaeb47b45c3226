package sessions

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

// realisticSession is a session after two turns of three citations each,
// with answers of the length the extractive dev backend gives.
func realisticSession(b *testing.B, n int, now time.Time) *Session {
	s, _, err := New(Owner{Type: OwnerAgent, ID: fmt.Sprintf("agent-%d", n%50)}, scope, Limits{}, 30*time.Minute, now)
	if err != nil {
		b.Fatal(err)
	}
	for k := range 2 {
		answer := realisticAnswer(n*2 + k)
		base := n*6 + k*3
		s.AddTurn(Turn{
			Question:  fmt.Sprintf("How does kunora-kgent persist memory between runs, case %d?", n),
			Answer:    answer,
			Citations: []protocol.Citation{citation(base), citation(base + 1), citation(base + 2)},
			At:        now,
		})
	}
	return s
}

// realisticAnswer is an extractive answer of about 450 bytes: four cited
// sentences that differ between sessions, so the size is not flattered by
// repetition.
func realisticAnswer(n int) string {
	var b strings.Builder
	for i := range 4 {
		fmt.Fprintf(&b, "Kgent run %d keeps its conversation memory in backend %d, configured under memory.backends[%d] of the agent manifest [ID:%d]. ", n, n%5, i, i)
	}
	return b.String()
}

// BenchmarkStorePut measures a write of a realistic session: encoding and
// the bigcache Set.
func BenchmarkStorePut(b *testing.B) {
	m := newStore(b, MemoryConfig{})
	s := realisticSession(b, 1, time.Now())
	for b.Loop() {
		data, err := encodeSession(s)
		if err != nil {
			b.Fatal(err)
		}
		if err := m.named.put(s.ID, data, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreUpdate measures a follow-up's read-modify-write.
func BenchmarkStoreUpdate(b *testing.B) {
	ctx := context.Background()
	m := newStore(b, MemoryConfig{})
	s := realisticSession(b, 1, time.Now())
	if err := m.Create(ctx, s); err != nil {
		b.Fatal(err)
	}
	touch := func(s *Session) error { s.Turns[1].At = time.Now(); return nil }
	for b.Loop() {
		if err := m.Update(ctx, s.ID, touch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStoreGet(b *testing.B) {
	ctx := context.Background()
	m := newStore(b, MemoryConfig{})
	s := realisticSession(b, 1, time.Now())
	if err := m.Create(ctx, s); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Get(ctx, s.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLiveSessions100k stores 100,000 live sessions and reports the
// heap they take and the stored size of one, to size MaxBytes against
// traffic. The store is given 1 GiB so nothing is evicted; the default
// 256 MiB holds fewer (see the B/session metric).
func BenchmarkLiveSessions100k(b *testing.B) {
	const live = 100_000
	var heapMiB, entryBytes float64
	for b.Loop() {
		heapMiB, entryBytes = fillStore(b, live)
	}
	b.ReportMetric(heapMiB, "MiB")
	b.ReportMetric(entryBytes, "B/session")
}

// fillStore creates n sessions in a fresh store, checks none was evicted,
// and returns the heap in use by the store and the mean size of a stored
// session.
func fillStore(b *testing.B, n int) (heapMiB, entryBytes float64) {
	ctx := context.Background()
	before := heapInUse()
	m, err := NewMemoryStore(MemoryConfig{MaxBytes: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	now := time.Now()
	total := 0
	for i := range n {
		s := realisticSession(b, i, now)
		data, _ := encodeSession(s)
		total += len(data)
		if err := m.Create(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	after := heapInUse()
	if held := m.named.cache.Len(); held != n {
		b.Fatalf("store holds %d of %d sessions", held, n)
	}
	return float64(after-before) / (1 << 20), float64(total) / float64(n)
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
