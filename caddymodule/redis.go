package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/redisconn"
	"github.com/wikigate/wikigate/sessions/redisstore"
)

// RedisConfig is the shared `redis` block: the Redis every store that is
// set to `store redis` uses (sessions now; rate limits next). Secrets go
// in as {env.NAME} placeholders, expanded at provision time, so they never
// appear in the adapted JSON.
type RedisConfig struct {
	// URL is redis://[user:password@]host:port[/db] or rediss:// for TLS.
	URL      string `json:"url,omitempty"`
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
	// TLS turns TLS on for a redis:// URL; TLSCAFile is a PEM bundle to
	// verify the server with, TLSServerName the name to verify.
	TLS           bool   `json:"tls,omitempty"`
	TLSCAFile     string `json:"tls_ca_file,omitempty"`
	TLSServerName string `json:"tls_server_name,omitempty"`
	// KeyPrefix starts every key. Default "wikigate:".
	KeyPrefix string `json:"key_prefix,omitempty"`
	// PoolSize is the most connections per gate. Default 10 per CPU.
	PoolSize int `json:"pool_size,omitempty"`
	// Timeout bounds a dial and each command. Default 2s.
	Timeout caddy.Duration `json:"timeout,omitempty"`
}

func (c *RedisConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "redis", map[string]func() error{
		"url":      func() error { return oneArg(d, &c.URL) },
		"username": func() error { return oneArg(d, &c.Username) },
		"password": func() error { return oneArg(d, &c.Password) },
		"tls": func() error {
			var on *bool
			err := onOff(d, &on)
			c.TLS = on != nil && *on
			return err
		},
		"tls_ca_file":     func() error { return oneArg(d, &c.TLSCAFile) },
		"tls_server_name": func() error { return oneArg(d, &c.TLSServerName) },
		"key_prefix":      func() error { return oneArg(d, &c.KeyPrefix) },
		"pool_size":       func() error { return intArg(d, &c.PoolSize, 1, 10000) },
		"timeout":         func() error { return durationArg(d, &c.Timeout) },
	})
}

// connConfig expands placeholders into the client's settings.
func (c *RedisConfig) connConfig(repl *caddy.Replacer) redisconn.Config {
	return redisconn.Config{
		URL:        repl.ReplaceAll(c.URL, ""),
		Username:   repl.ReplaceAll(c.Username, ""),
		Password:   repl.ReplaceAll(c.Password, ""),
		TLS:        c.TLS,
		CAFile:     repl.ReplaceAll(c.TLSCAFile, ""),
		ServerName: repl.ReplaceAll(c.TLSServerName, ""),
		KeyPrefix:  repl.ReplaceAll(c.KeyPrefix, ""),
		PoolSize:   c.PoolSize,
		Timeout:    time.Duration(c.Timeout),
	}
}

type redisSessionStore struct{ *redisstore.Store }

func (s redisSessionStore) Destruct() error { return s.Close() }

// loadRedisSessions returns the pooled Redis session store and its pool
// key. The key is a hash of everything that shapes the store, so a reload
// with the same settings keeps its connections, and the secrets in the
// settings are not kept in clear in the pool.
func (c *SessionsConfig) loadRedisSessions(rc *RedisConfig, repl *caddy.Replacer, logger *zap.Logger) (pooledSessions, string, error) {
	if rc == nil {
		return nil, "", fmt.Errorf("sessions: store redis needs a redis block in the wikigate directive")
	}
	if c.MaxMemoryBytes != 0 || c.AnonymousMemoryBytes != 0 {
		return nil, "", fmt.Errorf("sessions: max_memory and anonymous_memory size the memory store; with store redis, size Redis (maxmemory) instead")
	}
	conn := rc.connConfig(repl)
	cfg := redisstore.Config{KeyPrefix: conn.Prefix(), TTL: time.Duration(c.TTL), AnonymousMaxSessions: c.AnonymousSessions}
	sum := sha256.Sum256(fmt.Appendf(nil, "%#v|%#v", conn, cfg))
	key := "sessions:redis:" + hex.EncodeToString(sum[:])
	routeRedisLogs(logger)
	v, _, err := stores.LoadOrNew(key, func() (caddy.Destructor, error) {
		rdb, err := redisconn.New(conn)
		if err != nil {
			return nil, err
		}
		s, err := redisstore.New(rdb, cfg)
		if err != nil {
			_ = rdb.Close()
			return nil, err
		}
		return redisSessionStore{s}, nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("session store: %w", err)
	}
	return v.(redisSessionStore).Store, key, nil
}

// redisLogOnce: go-redis has one process-wide logger; it goes to the first
// provisioned gate's log (named "redis") instead of stderr.
var redisLogOnce sync.Once

func routeRedisLogs(logger *zap.Logger) {
	redisLogOnce.Do(func() { redis.SetLogger(zapRedisLogger{logger.Named("redis")}) })
}

type zapRedisLogger struct{ l *zap.Logger }

func (z zapRedisLogger) Printf(_ context.Context, format string, v ...any) {
	z.l.Warn(fmt.Sprintf(format, v...))
}
