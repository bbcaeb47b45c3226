package devlog

import (
	"net/http/httptest"
	"slices"
	"testing"
)

func TestRingKeepsTheNewestOldestFirst(t *testing.T) {
	r := NewRing[int](3)
	if got := r.Snapshot(); got == nil || len(got) != 0 {
		t.Fatalf("empty ring: %v", got)
	}
	for i := 1; i <= 5; i++ {
		r.Add(i)
	}
	if got := r.Snapshot(); !slices.Equal(got, []int{3, 4, 5}) {
		t.Fatalf("got %v", got)
	}
	r.Clear()
	r.Add(9)
	if got := r.Snapshot(); !slices.Equal(got, []int{9}) {
		t.Fatalf("after clear: %v", got)
	}
}

func TestStatusWriter(t *testing.T) {
	w := &StatusWriter{ResponseWriter: httptest.NewRecorder()}
	if w.Status() != 200 {
		t.Fatal("default status")
	}
	w.WriteHeader(418)
	w.WriteHeader(500)
	if w.Status() != 418 {
		t.Fatalf("first status wins, got %d", w.Status())
	}
}
