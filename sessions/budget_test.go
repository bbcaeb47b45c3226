package sessions

import (
	"context"
	"errors"
	"testing"
)

var visitor = Owner{Type: OwnerHuman, Anonymous: true}

// TestAnonymousFloodNeverEvictsSignedInSessions is the issue 8 attack:
// anonymous creates until the store refuses them. A signed-in caller's
// session must survive, and the flood must end in ErrAnonymousBudget, not
// in evictions.
func TestAnonymousFloodNeverEvictsSignedInSessions(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{MaxBytes: 1 << 20, AnonymousMaxBytes: 1 << 20, AnonymousMaxSessions: 1 << 20, Now: newClock(t0).Now})
	victim, _ := newSession(t, kgent, Limits{})
	if err := m.Create(ctx, victim); err != nil {
		t.Fatal(err)
	}
	first, _ := newSession(t, visitor, Limits{})
	if err := m.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	accepted := 1
	for ; accepted < 20000; accepted++ {
		s, _ := newSession(t, visitor, Limits{})
		err := m.Create(ctx, s)
		if errors.Is(err, ErrAnonymousBudget) {
			break
		}
		if err != nil {
			t.Fatalf("anonymous create %d: %v", accepted, err)
		}
	}
	if accepted == 20000 {
		t.Fatal("20000 anonymous sessions were accepted in a 1 MiB budget")
	}
	if _, err := m.Get(ctx, victim.ID); err != nil {
		t.Fatalf("the signed-in session was lost to %d anonymous creates: %v", accepted, err)
	}
	if _, err := m.Get(ctx, first.ID); err != nil {
		t.Fatalf("the first anonymous session was evicted instead of new ones being refused: %v", err)
	}
	if err := m.Admit(ctx, kgent); err != nil {
		t.Errorf("a signed-in caller is refused while the anonymous budget is full: %v", err)
	}
	other, _ := newSession(t, alice, Limits{})
	if err := m.Create(ctx, other); err != nil {
		t.Errorf("a signed-in create failed while the anonymous budget is full: %v", err)
	}
}

func TestAnonymousSessionCountIsBounded(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{MaxBytes: 1 << 20, AnonymousMaxSessions: 3, Now: newClock(t0).Now})
	var ids []string
	for range 3 {
		s, _ := newSession(t, visitor, Limits{})
		if err := m.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	if err := m.Admit(ctx, visitor); !errors.Is(err, ErrAnonymousBudget) {
		t.Errorf("Admit with 3 of 3 anonymous sessions = %v, want ErrAnonymousBudget", err)
	}
	s, _ := newSession(t, visitor, Limits{})
	if err := m.Create(ctx, s); !errors.Is(err, ErrAnonymousBudget) {
		t.Errorf("4th anonymous Create = %v, want ErrAnonymousBudget", err)
	}
	// Turns of the sessions already admitted still work and do not count
	// as new sessions.
	for range 20 {
		if err := m.Update(ctx, ids[0], func(s *Session) error { s.AddTurn(turn("and then?", 10, citation(1))); return nil }); err != nil {
			t.Fatalf("turn of an admitted anonymous session: %v", err)
		}
	}
	if live, _ := m.anonymous.holds(); live != 3 {
		t.Errorf("anonymous partition counts %d sessions after updates, want 3", live)
	}
}

// TestPartitionCountsFollowEvictions: the counts Admit relies on go down
// when bigcache evicts for room, or a full budget would never recover.
func TestPartitionCountsFollowEvictions(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{MaxBytes: 1 << 20, Now: newClock(t0).Now})
	for range 8000 { // far more than 1 MiB holds
		s, _ := newSession(t, alice, Limits{})
		if err := m.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	live, bytes := m.named.holds()
	if held := m.named.cache.Len(); int64(held) != live {
		t.Errorf("named partition counts %d sessions, bigcache holds %d", live, held)
	}
	if bytes > 1<<20 {
		t.Errorf("named partition counts %d bytes in a 1 MiB cache", bytes)
	}
}

func TestUpdateKeepsOwner(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{MaxBytes: 1 << 20, Now: newClock(t0).Now})
	s, _ := newSession(t, alice, Limits{})
	if err := m.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	err := m.Update(ctx, s.ID, func(s *Session) error { s.Owner = visitor; return nil })
	if err == nil {
		t.Fatal("an update moved a session to another owner")
	}
}
