package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// connDeadline bounds every connection and request the script makes.
const connDeadline = 20 * time.Second

// target is the gate under attack.
type target struct {
	base   string // http://host:port
	addr   string // host:port for raw connections
	client *http.Client
	tokens tokens
}

// newTarget accepts only a plain-HTTP gate whose host resolves to loopback
// addresses: the attacks flood and reset connections on purpose.
func newTarget(ctx context.Context, raw string) (*target, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("-gate %q: want http://host:port", raw)
	}
	if err := requireLoopback(ctx, u.Hostname()); err != nil {
		return nil, err
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	toks, err := mintTokens()
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
	}
	return &target{
		base:   u.Scheme + "://" + u.Host,
		addr:   addr,
		client: &http.Client{Timeout: connDeadline, Transport: transport},
		tokens: toks,
	}, nil
}

func requireLoopback(ctx context.Context, host string) error {
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", host, err)
	}
	if len(ips) == 0 {
		return errors.New("no address for " + host)
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return fmt.Errorf("refusing %s (%s): hostile checks run against a loopback gate only", host, ip.IP)
		}
	}
	return nil
}

// dial opens a raw connection with the script's deadline.
func (t *target) dial(ctx context.Context) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	c, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(connDeadline))
	return c, nil
}

// resetClose closes c with a TCP reset (no graceful FIN), as a client that
// crashes or is killed does.
func resetClose(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}
