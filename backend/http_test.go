package backend

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHTTPClientCallsWithoutConnectionGoroutines: a plain-HTTP backend's
// connections, busy or idle, cost the gate no goroutines of their own
// (net/http's transport keeps a reader and a writer per connection), they
// are reused, the bodies arrive whole, and redirects are not followed.
func TestHTTPClientCallsWithoutConnectionGoroutines(t *testing.T) {
	var accepted atomic.Int64
	var gzip atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "" {
			gzip.Add(1)
		}
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		w.Write([]byte(strings.ToUpper(string(b))))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	client := HTTPClient()
	defer client.CloseIdleConnections()

	const conns = 8
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				resp, err := client.Post(srv.URL, "text/plain", strings.NewReader("ask"))
				if err != nil {
					t.Error(err)
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(b) != "ASK" {
					t.Errorf("%q %v", b, err)
				}
			}
		}()
	}
	wg.Wait()
	// The server keeps one goroutine per open connection; the client none.
	time.Sleep(50 * time.Millisecond)
	if extra, n := runtime.NumGoroutine()-before, int(accepted.Load()); extra > n+2 {
		t.Errorf("%d goroutines more than before for %d idle connections: the client keeps goroutines per connection", extra, n)
	}
	if n := accepted.Load(); n > conns*5/2 {
		t.Errorf("%d connections for %d requests: not reused", n, conns*5)
	}
	if gzip.Load() != 0 {
		t.Errorf("%d requests asked for gzip: they went through net/http's transport", gzip.Load())
	}
	resp, err := client.Get(srv.URL + "/moved")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("redirect: status %d, want the 302 itself", resp.StatusCode)
	}
}

// TestHTTPClientCancelAndHTTPS: a call whose context ends is a context
// error the classification reads (TransportKind, ClientClosed), and an
// https backend is still served (by net/http's transport: its TLS error
// names the certificate).
func TestHTTPClientCancelAndHTTPS(t *testing.T) {
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-hold
	}))
	defer srv.Close()
	defer close(hold)
	client := HTTPClient()
	defer client.CloseIdleConnections()

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	_, err := client.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) || TransportKind(ctx, err) != Timeout {
		t.Errorf("deadline: %v (kind %v), want DeadlineExceeded and Timeout", err, TransportKind(ctx, err))
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel2)
	req, _ = http.NewRequestWithContext(ctx2, http.MethodGet, srv.URL, nil)
	_, err = client.Do(req)
	if !errors.Is(err, context.Canceled) || !ClientClosed(ctx2) || TransportKind(ctx2, err) != Unreachable {
		t.Errorf("cancel: %v (kind %v), want Canceled and Unreachable", err, TransportKind(ctx2, err))
	}

	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer tls.Close()
	_, err = client.Get(tls.URL)
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("https to an untrusted certificate: %v, want a certificate error", err)
	}
}
