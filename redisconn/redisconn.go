// Package redisconn opens the Redis connection pool that wikigate's shared
// stores use when several gates run behind one load balancer (docs/operators.md, "Several gates"):
// sessions today, rate-limit counters next. It only turns the operator's
// settings into a go-redis client; what is stored is each store's business.
//
// go-redis is the Redis project's own Go client: kept current with the
// server, pooled, reconnecting on its own after an outage.
package redisconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Defaults of Config.
const (
	DefaultKeyPrefix = "wikigate:"
	DefaultTimeout   = 2 * time.Second
)

// Config is the shared `redis` block. Secrets (the URL's password,
// Password) come from {env.NAME} placeholders the caller has expanded.
type Config struct {
	// URL is redis://[user:password@]host:port[/db]; rediss:// turns TLS on.
	URL      string
	Username string // overrides the URL's user when set
	Password string // overrides the URL's password when set
	// TLS turns TLS on for a redis:// URL; CAFile adds a PEM CA bundle to
	// verify the server with, ServerName overrides the name checked.
	TLS        bool
	CAFile     string
	ServerName string
	// KeyPrefix starts every key wikigate writes, so one Redis can serve
	// several deployments. Default "wikigate:".
	KeyPrefix string
	// PoolSize is the most connections one gate holds; default go-redis's
	// 10 per CPU.
	PoolSize int
	// Timeout bounds dialing and each command's read and write, so an
	// unreachable Redis fails a call in seconds rather than hanging it.
	// Default 2s.
	Timeout time.Duration
}

// Prefix is the key prefix in force.
func (c Config) Prefix() string {
	if c.KeyPrefix == "" {
		return DefaultKeyPrefix
	}
	return c.KeyPrefix
}

// New builds the client. It does no I/O: connections are opened on first
// use, so a gate starts (and `caddy validate` passes) while Redis is down,
// and serves what does not need Redis meanwhile.
func New(c Config) (*redis.Client, error) {
	opts, err := c.options()
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opts), nil
}

func (c Config) options() (*redis.Options, error) {
	if c.URL == "" {
		return nil, errors.New("redis: url is required")
	}
	opts, err := redis.ParseURL(c.URL)
	if err != nil {
		// ParseURL's errors can quote the URL, password included.
		return nil, errors.New("redis: url is not a redis:// or rediss:// URL")
	}
	if c.Username != "" {
		opts.Username = c.Username
	}
	if c.Password != "" {
		opts.Password = c.Password
	}
	if err := c.applyTLS(opts); err != nil {
		return nil, err
	}
	if c.PoolSize < 0 || c.Timeout < 0 {
		return nil, errors.New("redis: pool_size and timeout must not be negative")
	}
	opts.PoolSize = c.PoolSize
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = timeout, timeout, timeout
	// A refused dial is retried once, not five times: while Redis is down
	// the session routes should answer 503 in well under a second. Once
	// every pooled dial has failed, go-redis fails calls at once and probes
	// Redis every second, so calls work again about a second after Redis
	// is back, without a restart.
	opts.DialerRetries, opts.DialerRetryTimeout = 2, 50*time.Millisecond
	// Plain RESP2 and no hand-shake extras: they would only add failing
	// commands (and log lines) against servers older than 7.2.
	opts.Protocol = 2
	opts.DisableIdentity = true
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return opts, nil
}

// applyTLS sets up TLS when the config or a rediss:// URL asks for it.
func (c Config) applyTLS(opts *redis.Options) error {
	if !c.TLS && opts.TLSConfig == nil {
		if c.CAFile != "" || c.ServerName != "" {
			return errors.New("redis: tls_ca_file and tls_server_name need tls on or a rediss:// URL")
		}
		return nil
	}
	if opts.TLSConfig == nil {
		host, _, err := net.SplitHostPort(opts.Addr)
		if err != nil {
			return errors.New("redis: url has no host:port")
		}
		opts.TLSConfig = &tls.Config{ServerName: host}
	}
	opts.TLSConfig.MinVersion = tls.VersionTLS12
	if c.ServerName != "" {
		opts.TLSConfig.ServerName = c.ServerName
	}
	if c.CAFile == "" {
		return nil
	}
	pem, err := os.ReadFile(c.CAFile)
	if err != nil {
		return fmt.Errorf("redis: tls_ca_file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("redis: tls_ca_file %s holds no PEM certificate", c.CAFile)
	}
	opts.TLSConfig.RootCAs = pool
	return nil
}
