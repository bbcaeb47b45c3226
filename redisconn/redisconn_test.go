package redisconn

import (
	"strings"
	"testing"
	"time"
)

func TestOptionsFromURLAndOverrides(t *testing.T) {
	o, err := Config{URL: "redis://u:from-url@redis.internal:6380/2", Password: "from-env", PoolSize: 7}.options()
	if err != nil {
		t.Fatal(err)
	}
	if o.Addr != "redis.internal:6380" || o.DB != 2 || o.Username != "u" || o.Password != "from-env" || o.PoolSize != 7 {
		t.Fatalf("options %+v", o)
	}
	if o.TLSConfig != nil || o.DialTimeout != DefaultTimeout || o.ReadTimeout != DefaultTimeout {
		t.Fatalf("tls %v, timeouts %v %v", o.TLSConfig, o.DialTimeout, o.ReadTimeout)
	}
}

func TestTLS(t *testing.T) {
	o, err := Config{URL: "redis://redis.internal:6379", TLS: true, ServerName: "cache.example", Timeout: time.Second}.options()
	if err != nil || o.TLSConfig == nil || o.TLSConfig.ServerName != "cache.example" || o.DialTimeout != time.Second {
		t.Fatalf("tls on: %+v %v", o, err)
	}
	o, err = Config{URL: "rediss://redis.internal:6379"}.options()
	if err != nil || o.TLSConfig == nil || o.TLSConfig.ServerName != "redis.internal" {
		t.Fatalf("rediss: %+v %v", o, err)
	}
	if _, err := (Config{URL: "redis://h:6379", CAFile: "ca.pem"}).options(); err == nil {
		t.Fatal("a CA file without TLS was accepted")
	}
}

// A URL that does not parse is refused without quoting it: it may hold
// the password.
func TestBadURLDoesNotLeakPassword(t *testing.T) {
	for _, url := range []string{"", "http://u:s3cret@h:6379", "redis://u:s3cret@h:6379/x/y"} {
		_, err := New(Config{URL: url})
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: %v", url, err)
		}
	}
}

func TestPrefixDefault(t *testing.T) {
	if (Config{}).Prefix() != "wikigate:" || (Config{KeyPrefix: "blue:"}).Prefix() != "blue:" {
		t.Fatal("prefix")
	}
}
