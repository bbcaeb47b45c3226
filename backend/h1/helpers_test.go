package h1

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// newTransport is a Transport whose fallback fails the test when used.
func newTransport(t *testing.T, o Options) *Transport {
	t.Helper()
	if o.Fallback == nil {
		o.Fallback = roundTripFunc(func(r *http.Request) (*http.Response, error) {
			t.Errorf("request %s %s went to the fallback", r.Method, r.URL)
			return nil, io.ErrUnexpectedEOF
		})
	}
	tr := New(o)
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// countingServer is an httptest server (127.0.0.1) counting the
// connections it accepted.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var accepted atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &accepted
}

// rawServer accepts connections on 127.0.0.1 and runs serve on each, with
// the connection's number (0 for the first).
type rawServer struct {
	ln       net.Listener
	accepted atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

func newRawServer(t *testing.T, serve func(c net.Conn, br *bufio.Reader, n int)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := int(s.accepted.Add(1)) - 1
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				serve(c, bufio.NewReader(c), n)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() }

// readRequest reads one request and its body; false when the client went.
func readRequest(br *bufio.Reader) (*http.Request, []byte, bool) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, nil, false
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, nil, false
	}
	return req, body, true
}

// get sends a GET through tr and returns the status and the whole body.
func get(t *testing.T, tr http.RoundTripper, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// checkGoroutines fails the test when, after cleanup, more goroutines run
// than before it (waiting up to 2 s for them to end).
func checkGoroutines(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines left running, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
	})
}
