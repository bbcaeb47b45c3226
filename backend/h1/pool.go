package h1

import (
	"sync"
	"time"
)

// pool holds idle connections per host:port, most recently used last, at
// most perHost for one host and max in all. A connection idle longer than
// timeout is closed: by a get that finds it, or by a sweep, a timer armed
// while the pool holds any connection (no goroutine of its own otherwise).
type pool struct {
	max, perHost int
	timeout      time.Duration

	mu    sync.Mutex
	idle  map[string][]*conn
	n     int
	sweep *time.Timer // armed while n > 0
}

func (p *pool) init(max, perHost int, timeout time.Duration) {
	p.max, p.perHost, p.timeout = max, perHost, timeout
	p.idle = make(map[string][]*conn)
}

// get takes key's most recently used idle connection that is still open
// (conn.alive), or nil; those found closed or holding stale bytes are
// closed and the next one tried.
func (p *pool) get(key string) *conn {
	for {
		c := p.take(key)
		if c == nil || c.alive() {
			return c
		}
		c.close()
	}
}

// take takes key's most recently used idle connection, or nil. Expired
// ones found on the way (all below an expired one are older) are closed.
func (p *pool) take(key string) *conn {
	now := time.Now()
	p.mu.Lock()
	list := p.idle[key]
	if len(list) == 0 {
		p.mu.Unlock()
		return nil
	}
	c := list[len(list)-1]
	list[len(list)-1] = nil
	list = list[:len(list)-1]
	p.n--
	if now.Sub(c.idleAt) < p.timeout {
		p.idle[key] = list
		p.mu.Unlock()
		return c
	}
	stale := append([]*conn{c}, list...)
	clear(list)
	p.idle[key] = list[:0]
	p.n -= len(stale) - 1
	p.mu.Unlock()
	for _, s := range stale {
		s.close()
	}
	return nil
}

// put makes c idle, or closes it when the pool is full.
func (p *pool) put(c *conn) {
	c.idleAt = time.Now()
	p.mu.Lock()
	list := p.idle[c.key]
	if len(list) >= p.perHost || p.n >= p.max {
		p.mu.Unlock()
		c.close()
		return
	}
	p.idle[c.key] = append(list, c)
	p.n++
	if p.sweep == nil {
		p.sweep = time.AfterFunc(p.timeout, p.expire)
	} else if p.n == 1 {
		p.sweep.Reset(p.timeout)
	}
	p.mu.Unlock()
}

// expire closes the connections idle longer than the timeout and re-arms
// the sweep for the oldest left.
func (p *pool) expire() {
	now := time.Now()
	var stale []*conn
	p.mu.Lock()
	oldest := now
	for key, list := range p.idle {
		i := 0
		for i < len(list) && now.Sub(list[i].idleAt) >= p.timeout {
			i++
		}
		if i > 0 {
			stale = append(stale, list[:i]...)
			n := copy(list, list[i:])
			clear(list[n:])
			list = list[:n]
			p.idle[key] = list
		}
		if len(list) == 0 {
			delete(p.idle, key)
		} else if list[0].idleAt.Before(oldest) {
			oldest = list[0].idleAt
		}
	}
	p.n -= len(stale)
	if p.n > 0 {
		p.sweep.Reset(oldest.Add(p.timeout).Sub(now) + time.Millisecond)
	}
	p.mu.Unlock()
	for _, c := range stale {
		c.close()
	}
}

// closeAll closes every idle connection.
func (p *pool) closeAll() {
	p.mu.Lock()
	var all []*conn
	for key, list := range p.idle {
		all = append(all, list...)
		delete(p.idle, key)
	}
	p.n = 0
	p.mu.Unlock()
	for _, c := range all {
		c.close()
	}
}
