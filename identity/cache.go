package identity

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/allegro/bigcache/v3"
)

// tokenCache remembers verified tokens so a busy agent does not pay for a
// signature check per request. Keys are SHA-256 hashes of the token (never
// the token), and an entry is only served before the token's exp. A nil
// *tokenCache is a disabled cache.
type tokenCache struct {
	cache     *bigcache.BigCache
	closeOnce sync.Once
}

// cachedPrincipal is the stored entry (cache_codec.go): the principal and
// the token's exp.
type cachedPrincipal struct {
	Principal Principal
	ExpUnix   int64 // seconds, as in the token
}

// newTokenCache returns a cache bounded to sizeBytes (rounded up to MiB), or
// nil when sizeBytes is negative.
func newTokenCache(sizeBytes int) (*tokenCache, error) {
	if sizeBytes < 0 {
		return nil, nil
	}
	const mib = 1 << 20
	cfg := bigcache.Config{
		Shards:             64,
		LifeWindow:         time.Hour, // exp decides validity; this only evicts
		CleanWindow:        time.Minute,
		MaxEntriesInWindow: 64 * 64,
		MaxEntrySize:       256,
		HardMaxCacheSize:   (sizeBytes + mib - 1) / mib,
		Verbose:            false,
	}
	// Background ctx: bigcache prints to stdout when its ctx ends; Close
	// stops the cleanup goroutine instead.
	bc, err := bigcache.New(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return &tokenCache{cache: bc}, nil
}

// tokenCacheKey hashes the verifier domain and the token together, so an
// agent result is never served to the human verifier or the other way round.
// The input is assembled on the stack (a token under 1 KiB, nearly all of
// them), so the key costs one allocation: the key itself.
func tokenCacheKey(domain, token string) string {
	var buf [1024]byte
	in := append(append(append(buf[:0], domain...), 0), token...)
	sum := sha256.Sum256(in)
	return string(sum[:])
}

// get returns the cached principal while now is before the token's exp.
func (c *tokenCache) get(key string, now time.Time) (Principal, bool) {
	if c == nil {
		return Principal{}, false
	}
	raw, err := c.cache.Get(key)
	if err != nil {
		return Principal{}, false
	}
	entry, err := decodeCachedPrincipal(raw)
	if err != nil || !now.Before(time.Unix(entry.ExpUnix, 0)) {
		_ = c.cache.Delete(key)
		return Principal{}, false
	}
	return entry.Principal, true
}

// put stores p until exp; tokens already at or past exp (accepted within
// leeway) are not cached.
func (c *tokenCache) put(key string, p Principal, exp, now time.Time) {
	if c == nil || !now.Before(exp) {
		return
	}
	_ = c.cache.Set(key, encodeCachedPrincipal(cachedPrincipal{Principal: p, ExpUnix: exp.Unix()})) // a full cache only costs a re-verification
}

// close stops the cleanup goroutine; safe to call more than once.
func (c *tokenCache) close() error {
	if c == nil {
		return nil
	}
	var err error
	c.closeOnce.Do(func() { err = c.cache.Close() })
	return err
}
