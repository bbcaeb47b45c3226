package backend

import (
	"net"
	"net/http"
	"time"
)

// HTTPClient is the transport every backend client uses by default: bounded
// dials and handshakes, enough idle connections per host for a busy gate
// (Go's default keeps 2, so concurrent calls would keep reconnecting), and
// no redirects: a redirect is not part of either contract, and following one
// could send the key elsewhere (the 3xx is reported as a bad response).
func HTTPClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  http.ProxyFromEnvironment,
			DialContext:            (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:    3 * time.Second,
			MaxIdleConns:           64,
			MaxIdleConnsPerHost:    32,
			IdleConnTimeout:        90 * time.Second,
			MaxResponseHeaderBytes: 64 << 10,
			ForceAttemptHTTP2:      true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
