package policies

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/bundle"
)

// source is where candidate policies come from: a policy directory (watched
// with fsnotify), a local bundle or a bundle server (both polled).
type source interface {
	// read returns the source's current candidate; nil with a nil error
	// when the source says nothing changed (HTTP 304).
	read(ctx context.Context) (*candidate, error)
	// String names the source in log lines.
	String() string
}

type dirSource struct{ dir string }

func (s dirSource) read(context.Context) (*candidate, error) { return dirCandidate(s.dir) }
func (s dirSource) String() string                           { return s.dir }

// fileBundleSource is a bundle directory or .tar.gz on local disk.
type fileBundleSource struct {
	path string
	vc   *bundle.VerificationConfig
}

func (s fileBundleSource) read(context.Context) (*candidate, error) {
	return readBundleFile(s.path, s.vc)
}
func (s fileBundleSource) String() string { return s.path }

// httpBundleSource downloads a bundle from a bundle server. It sends the
// ETag of the bundle now serving as If-None-Match, so an unchanged bundle
// costs the server a 304 and the gate nothing.
type httpBundleSource struct {
	url    string
	vc     *bundle.VerificationConfig
	client *http.Client
	// etag is touched only by reloads, which the engine serializes.
	etag string
}

func newHTTPBundleSource(url string, vc *bundle.VerificationConfig, client *http.Client) *httpBundleSource {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	return &httpBundleSource{url: url, vc: vc, client: client}
}

func (s *httpBundleSource) String() string { return s.url }

func (s *httpBundleSource) read(ctx context.Context) (*candidate, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("policy bundle: %w", err)
	}
	if s.etag != "" {
		req.Header.Set("If-None-Match", s.etag)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, &UnavailableError{Source: s.url, Err: err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && s.etag != "":
		return nil, nil
	case resp.StatusCode != http.StatusOK:
		return nil, &UnavailableError{Source: s.url, Err: fmt.Errorf("HTTP %s", resp.Status)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBundleBytes+1))
	if err != nil {
		return nil, &UnavailableError{Source: s.url, Err: err}
	}
	if len(data) > maxBundleBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrBundleRefused, maxBundleBytes)
	}
	c, err := readTarball(data, s.vc)
	if err != nil {
		return nil, err
	}
	etag := resp.Header.Get("ETag")
	c.activated = func() { s.etag = etag }
	return c, nil
}

// UnavailableError is a bundle server that could not be reached or did not
// answer 200/304; the poller backs off, the last good policy serves.
type UnavailableError struct {
	Source string
	Err    error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("policy bundle server %s unavailable: %v", e.Source, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// newSource picks the source opts configure.
func newSource(opts Options) source {
	b := opts.Bundle
	if b == nil {
		return dirSource{dir: opts.Dir}
	}
	if strings.HasPrefix(b.Source, "http://") || strings.HasPrefix(b.Source, "https://") {
		return newHTTPBundleSource(b.Source, b.verification(), b.HTTPClient)
	}
	return fileBundleSource{path: b.Source, vc: b.verification()}
}
