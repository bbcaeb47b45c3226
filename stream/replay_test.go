package stream

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// recorded is a writer whose events a Replay keeps.
func recorded(t *testing.T, p *Replay, owner string) (*Writer, *Recording) {
	t.Helper()
	rec, err := p.Start(owner)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(httptest.NewRecorder(), time.Hour)
	w.Record(rec)
	return w, rec
}

func follow(p *Replay, id, owner string, last int) ([]string, error) {
	var got []string
	err := p.Follow(context.Background(), id, owner, last, func(f string) error { got = append(got, f); return nil })
	return got, err
}

func TestReplayResumesAfterTheLastEventID(t *testing.T) {
	p := NewReplay(ReplayConfig{})
	w, rec := recorded(t, p, "agent:a")
	for i := range 4 {
		_ = w.Send(EventDelta, Delta{Text: fmt.Sprint(i)})
	}
	w.Close()
	got, err := follow(p, rec.ID, "agent:a", 2)
	if err != nil || len(got) != 2 || !strings.HasPrefix(got[0], "event: delta\nid: 3\n") || !strings.Contains(got[1], "id: 4\n") {
		t.Fatalf("resume after 2: %q %v", got, err)
	}
	if _, err := follow(p, rec.ID, "agent:b", 2); !errors.Is(err, ErrUnknownStream) {
		t.Errorf("another caller: %v", err)
	}
	if _, err := follow(p, "nope", "agent:a", 0); !errors.Is(err, ErrUnknownStream) {
		t.Errorf("unknown stream: %v", err)
	}
	if _, err := follow(p, rec.ID, "agent:a", 9); !errors.Is(err, ErrBadEventID) {
		t.Errorf("an id past the stream: %v", err)
	}
}

func TestReplayFollowsALiveStream(t *testing.T) {
	p := NewReplay(ReplayConfig{})
	w, rec := recorded(t, p, "o")
	_ = w.Send(EventStatus, Status{Stage: StageRetrieving})
	got := make(chan []string)
	go func() { fs, _ := follow(p, rec.ID, "o", 1); got <- fs }()
	_ = w.Send(EventDelta, Delta{Text: "a"})
	_ = w.Send(EventDone, Done{})
	w.Close()
	select {
	case fs := <-got:
		if len(fs) != 2 || !strings.Contains(fs[1], "event: done") {
			t.Fatalf("followed %q", fs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not see the end of the stream")
	}
}

func TestReplayWindowAndBounds(t *testing.T) {
	now := time.Unix(1000, 0)
	p := NewReplay(ReplayConfig{Window: time.Minute, MaxStreamBytes: 250, MaxBytes: 350, Now: func() time.Time { return now }})
	w, rec := recorded(t, p, "o")
	_ = w.Send(EventDelta, Delta{Text: "x"})
	w.Close()
	now = now.Add(time.Minute)
	if _, err := follow(p, rec.ID, "o", 0); !errors.Is(err, ErrUnknownStream) {
		t.Errorf("past the window: %v", err)
	}

	long, lrec := recorded(t, p, "o")
	_ = long.Send(EventDelta, Delta{Text: strings.Repeat("y", 300)})
	if _, err := follow(p, lrec.ID, "o", 0); !errors.Is(err, ErrStreamTooLong) {
		t.Errorf("a stream over its bound: %v", err)
	}

	a, arec := recorded(t, p, "o")
	_ = a.Send(EventDelta, Delta{Text: strings.Repeat("a", 120)})
	b, brec := recorded(t, p, "o")
	_ = b.Send(EventDelta, Delta{Text: strings.Repeat("b", 120)})
	_ = b.Send(EventDelta, Delta{Text: strings.Repeat("b", 20)})
	a.Close()
	b.Close()
	long.Close()
	if _, err := follow(p, arec.ID, "o", 0); !errors.Is(err, ErrUnknownStream) || p.Evictions() != 1 {
		t.Errorf("the oldest stream past the total bound: %v, %d evictions", err, p.Evictions())
	}
	if fs, err := follow(p, brec.ID, "o", 1); err != nil || len(fs) != 1 {
		t.Errorf("the newest stream is kept: %q %v", fs, err)
	}
}
