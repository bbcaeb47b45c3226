package stream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a Replay (docs/docs-sites.md "Resuming a stream").
const (
	// DefaultResumeWindow is how long a stream's events stay readable
	// after it ended.
	DefaultResumeWindow = 5 * time.Minute
	// DefaultMaxStreamBytes bounds one stream's kept events: a long
	// answer's deltas, citations and result fit many times over.
	DefaultMaxStreamBytes = 256 << 10
	// DefaultMaxReplayBytes bounds the events kept for every stream of the
	// gate together; past it the oldest streams are evicted.
	DefaultMaxReplayBytes = 32 << 20
)

// Why Resume refused.
var (
	// ErrUnknownStream: no such stream for this caller: never started,
	// another caller's, expired past its window, or evicted for room.
	ErrUnknownStream = errors.New("unknown or expired stream")
	// ErrStreamTooLong: the stream outgrew its own bound and stopped being
	// kept, so its events cannot be replayed.
	ErrStreamTooLong = errors.New("stream too long to be kept")
)

// ReplayConfig bounds a Replay; zero values take the defaults.
type ReplayConfig struct {
	Window         time.Duration
	MaxStreamBytes int
	MaxBytes       int
	Now            func() time.Time
	// OnEvict, when set, hears each eviction with the count so far (the
	// gate logs it).
	OnEvict func(evictions int64)
}

// Replay keeps the events of recent streams in this process, so a reader
// that lost its connection reads the rest without a new generation. Memory
// is bounded per stream and in all; Evictions counts the streams dropped
// for room before their window ended.
type Replay struct {
	cfg       ReplayConfig
	mu        sync.Mutex
	streams   map[string]*Recording
	order     []*Recording // oldest first
	used      int
	evictions atomic.Int64
}

// NewReplay makes a Replay with cfg's bounds.
func NewReplay(cfg ReplayConfig) *Replay {
	if cfg.Window <= 0 {
		cfg.Window = DefaultResumeWindow
	}
	if cfg.MaxStreamBytes <= 0 {
		cfg.MaxStreamBytes = DefaultMaxStreamBytes
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxReplayBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Replay{cfg: cfg, streams: map[string]*Recording{}}
}

// Window is how long an ended stream stays readable.
func (p *Replay) Window() time.Duration { return p.cfg.Window }

// Evictions is how many streams were dropped for room before their window
// ended.
func (p *Replay) Evictions() int64 { return p.evictions.Load() }

// Recording is one stream's kept events.
type Recording struct {
	ID      string
	owner   string
	frames  []string // frames[i] is event i+1
	bytes   int
	tooLong bool
	ended   bool
	expires time.Time
	changed chan struct{} // closed and replaced on every change
	replay  *Replay
	dropped bool
}

// Start opens the recording of a new stream of owner (the caller key).
func (p *Replay) Start(owner string) (*Recording, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	r := &Recording{ID: hex.EncodeToString(b), owner: owner, changed: make(chan struct{}), replay: p}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweep()
	p.streams[r.ID] = r
	p.order = append(p.order, r)
	return r, nil
}

// add keeps frame (the next event). Caller holds nothing.
func (r *Recording) add(frame string) {
	p := r.replay
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.dropped || r.tooLong {
		return
	}
	if r.bytes+len(frame) > p.cfg.MaxStreamBytes {
		r.tooLong = true
		p.used -= r.bytes
		r.frames, r.bytes = nil, 0
		r.notify()
		return
	}
	r.frames = append(r.frames, frame)
	r.bytes += len(frame)
	p.used += len(frame)
	for p.used > p.cfg.MaxBytes {
		p.evict(p.oldestHolding())
	}
	r.notify()
}

// end marks the stream finished: it stays readable for the window.
func (r *Recording) end() {
	p := r.replay
	p.mu.Lock()
	defer p.mu.Unlock()
	r.ended = true
	r.expires = p.cfg.Now().Add(p.cfg.Window)
	r.notify()
}

func (r *Recording) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// oldestHolding is the oldest stream that holds events (r itself at
// worst: used > 0 means one does). Caller holds mu.
func (p *Replay) oldestHolding() *Recording {
	for _, r := range p.order {
		if r.bytes > 0 {
			return r
		}
	}
	return p.order[len(p.order)-1]
}

// evict drops r for room. Caller holds mu.
func (p *Replay) evict(r *Recording) {
	p.drop(r)
	n := p.evictions.Add(1)
	if p.cfg.OnEvict != nil {
		p.cfg.OnEvict(n)
	}
}

// drop forgets r. Caller holds mu.
func (p *Replay) drop(r *Recording) {
	if r.dropped {
		return
	}
	r.dropped = true
	p.used -= r.bytes
	r.frames, r.bytes = nil, 0
	delete(p.streams, r.ID)
	for i, o := range p.order {
		if o == r {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
	r.notify()
}

// sweep drops the ended streams past their window. Caller holds mu.
func (p *Replay) sweep() {
	now := p.cfg.Now()
	for _, r := range append([]*Recording(nil), p.order...) {
		if r.ended && !now.Before(r.expires) {
			p.drop(r)
		}
	}
}

// ErrBadEventID: Last-Event-ID names an event the stream never sent.
var ErrBadEventID = errors.New("no such event in this stream")

// Follow sends owner's stream id from the event after lastID: what is kept,
// then each new event until the stream ends (or ctx does). It starts no
// generation: it only reads what the stream's own call records.
func (p *Replay) Follow(ctx context.Context, id, owner string, lastID int, send func(frame string) error) error {
	next := lastID
	for {
		frames, ended, changed, err := p.after(id, owner, next)
		if err != nil {
			return err
		}
		for _, f := range frames {
			if err := send(f); err != nil {
				return err
			}
		}
		next += len(frames)
		switch {
		case len(frames) > 0:
		case ended:
			return nil
		default:
			select {
			case <-changed:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// after is what owner may read of stream id past event next.
func (p *Replay) after(id, owner string, next int) (frames []string, ended bool, changed chan struct{}, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweep()
	r := p.streams[id]
	switch {
	case r == nil || r.owner != owner:
		return nil, false, nil, ErrUnknownStream
	case r.tooLong:
		return nil, false, nil, ErrStreamTooLong
	case next < 0 || next > len(r.frames):
		return nil, false, nil, ErrBadEventID
	}
	return r.frames[next:], r.ended, r.changed, nil
}
