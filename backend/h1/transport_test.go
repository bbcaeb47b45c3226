package h1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestKeepAliveReusesOneConnection(t *testing.T) {
	checkGoroutines(t)
	srv, accepted := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			for i := range 3 {
				fmt.Fprintf(w, "part%d;", i)
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Header().Set("Content-Length", "5")
		io.WriteString(w, "hello")
	})
	tr := newTransport(t, Options{})
	for i := range 10 {
		path, want := "/length", "hello"
		if i%2 == 1 {
			path, want = "/chunked", "part0;part1;part2;"
		}
		if code, body := get(t, tr, srv.URL+path); code != 200 || body != want {
			t.Fatalf("request %d: %d %q, want 200 %q", i, code, body, want)
		}
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("server accepted %d connections for 10 sequential requests, want 1", n)
	}
}

func TestChunkedResponseIsChunkedOnTheWire(t *testing.T) {
	checkGoroutines(t)
	var seen []string
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		for {
			if _, _, ok := readRequest(br); !ok {
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n")
		}
	})
	tr := newTransport(t, Options{})
	for range 3 {
		_, body := get(t, tr, srv.url())
		seen = append(seen, body)
	}
	if strings.Join(seen, ",") != "abcdefg,abcdefg,abcdefg" {
		t.Errorf("bodies %q", seen)
	}
	if n := srv.accepted.Load(); n != 1 {
		t.Errorf("%d connections for 3 chunked responses, want 1", n)
	}
}

func TestEarlyCloseDropsTheConnection(t *testing.T) {
	checkGoroutines(t)
	big := strings.Repeat("x", 1<<20)
	srv, accepted := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, big)
	})
	tr := newTransport(t, Options{})
	for range 2 {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if _, err := resp.Body.Read(make([]byte, 1)); err == nil {
			t.Error("read after Close succeeded")
		}
	}
	if n := accepted.Load(); n != 2 {
		t.Errorf("%d connections, want 2: a body closed before its end must not give its connection back", n)
	}
	if tr.pool.n != 0 {
		t.Errorf("%d idle connections after early closes, want 0", tr.pool.n)
	}
}

func TestConnectionCloseIsHonoured(t *testing.T) {
	checkGoroutines(t)
	srv, accepted := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		io.WriteString(w, "ok")
	})
	tr := newTransport(t, Options{})
	for range 3 {
		if code, body := get(t, tr, srv.URL+"/close"); code != 200 || body != "ok" {
			t.Fatalf("%d %q", code, body)
		}
	}
	if n := accepted.Load(); n != 3 {
		t.Errorf("server's Connection: close: %d connections for 3 requests, want 3", n)
	}
	for range 3 {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/keep", nil)
		req.Close = true
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if n := accepted.Load(); n != 6 {
		t.Errorf("request's Close: %d connections after 3 more requests, want 6", n)
	}
}

func TestResponseWithoutLengthIsReadToEOFAndNotReused(t *testing.T) {
	checkGoroutines(t)
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		if _, _, ok := readRequest(br); ok {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end")
		}
	})
	tr := newTransport(t, Options{})
	for range 2 {
		if code, body := get(t, tr, srv.url()); code != 200 || body != "until the end" {
			t.Fatalf("%d %q", code, body)
		}
	}
	if n := srv.accepted.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

func TestServerClosingAnIdleConnectionIsNoticed(t *testing.T) {
	checkGoroutines(t)
	// Each connection serves one request and then closes, without saying
	// so: the next request finds a dead idle connection. A POST is not
	// sent again once written (TestLostAfterTheServerReadItRetriesOnlyIdempotent),
	// so each succeeds only because the idle check drops the dead
	// connection before the POST is written, and the server reads each
	// body once.
	var bodies []string
	var mu sync.Mutex
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		_, body, ok := readRequest(br)
		if !ok {
			return
		}
		mu.Lock()
		bodies = append(bodies, string(body))
		mu.Unlock()
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	tr := newTransport(t, Options{})
	for i := range 3 {
		req, _ := http.NewRequest(http.MethodPost, srv.url(), bytes.NewReader([]byte(fmt.Sprint("body", i))))
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != "ok" || resp.Request != req {
			t.Fatalf("request %d: %q %v", i, b, err)
		}
		// Let the server's close reach us before the next request.
		time.Sleep(20 * time.Millisecond)
	}
	if n := srv.accepted.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
	if got := strings.Join(bodies, ","); got != "body0,body1,body2" {
		t.Errorf("server read bodies %q", got)
	}
}

func TestNoRetryAfterAPartialResponse(t *testing.T) {
	checkGoroutines(t)
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		if _, _, ok := readRequest(br); !ok {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		if _, _, ok := readRequest(br); !ok {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-")
	})
	tr := newTransport(t, Options{})
	get(t, tr, srv.url())
	req, _ := http.NewRequest(http.MethodGet, srv.url(), nil)
	resp, err := tr.RoundTrip(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("a response cut inside its header succeeded")
	}
	if n := srv.accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1: no retry once an answer's byte arrived", n)
	}
}

func TestCancelEndsEachPhaseWithAContextError(t *testing.T) {
	checkGoroutines(t)
	for _, phase := range []string{"dial", "header", "body"} {
		for _, deadline := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/deadline=%v", phase, deadline), func(t *testing.T) {
				checkGoroutines(t)
				want := context.Canceled
				if deadline {
					want = context.DeadlineExceeded
				}
				err := cancelDuring(t, phase, deadline)
				if !errors.Is(err, want) {
					t.Errorf("error %v (%T), want one that is %v", err, err, want)
				}
				// The backend clients classify a net.Error's Timeout as
				// a timeout (backend.TransportKind): a cancel is not one.
				var ne net.Error
				if !deadline && errors.As(err, &ne) && ne.Timeout() {
					t.Errorf("a cancel reads as a timeout: %v", err)
				}
			})
		}
	}
}

// cancelDuring runs one request whose context ends while phase (dial,
// header, body) waits, and returns the error it ended with.
func cancelDuring(t *testing.T, phase string, deadline bool) error {
	reached := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		if _, _, ok := readRequest(br); !ok {
			return
		}
		if phase == "body" {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nfirst")
		}
		close(reached)
		<-release
	})
	o := Options{}
	if phase == "dial" {
		o.Dialer = &net.Dialer{ControlContext: func(ctx context.Context, _, _ string, _ syscall.RawConn) error {
			close(reached)
			<-ctx.Done()
			return ctx.Err()
		}}
	}
	tr := newTransport(t, o)
	ctx, cancel := context.WithCancel(context.Background())
	if deadline {
		ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	}
	defer cancel()
	go func() {
		<-reached
		if !deadline {
			cancel()
		}
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.url(), nil)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if phase != "body" {
		t.Fatalf("phase %s: got a response", phase)
	}
	_, err = io.ReadAll(resp.Body)
	if err == nil {
		t.Fatal("the body read to its end")
	}
	return err
}

func TestResponseHeaderTooLargeIsRefused(t *testing.T) {
	checkGoroutines(t)
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		if _, _, ok := readRequest(br); !ok {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\n")
		for range 100 {
			io.WriteString(c, "X-Filler: "+strings.Repeat("a", 1000)+"\r\n")
		}
		io.WriteString(c, "Content-Length: 2\r\n\r\nok")
	})
	tr := newTransport(t, Options{MaxResponseHeaderBytes: 64 << 10})
	req, _ := http.NewRequest(http.MethodGet, srv.url(), nil)
	resp, err := tr.RoundTrip(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("a 100 KB header was accepted under a 64 KB limit")
	}
	if !strings.Contains(err.Error(), "exceeded 65536 bytes") {
		t.Errorf("error %v", err)
	}
	// Under a larger limit the same response is fine.
	tr2 := newTransport(t, Options{MaxResponseHeaderBytes: 1 << 20})
	if code, body := get(t, tr2, srv.url()); code != 200 || body != "ok" {
		t.Errorf("%d %q", code, body)
	}
}

func TestInformationalResponsesAreSkipped(t *testing.T) {
	checkGoroutines(t)
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		for {
			if _, _, ok := readRequest(br); !ok {
				return
			}
			io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"+
				"HTTP/1.1 102 Processing\r\n\r\n"+
				"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal")
		}
	})
	tr := newTransport(t, Options{})
	for range 2 {
		if code, body := get(t, tr, srv.url()); code != 200 || body != "final" {
			t.Fatalf("%d %q", code, body)
		}
	}
	if n := srv.accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

func TestConcurrentRequests(t *testing.T) {
	checkGoroutines(t)
	srv, accepted := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(bytes.ToUpper(b))
	})
	tr := newTransport(t, Options{MaxIdleConnsPerHost: 4})
	const workers, each = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				in := fmt.Sprintf("w%d-r%d", w, i)
				req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(in))
				resp, err := tr.RoundTrip(req)
				if err != nil {
					errs <- err
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(b) != strings.ToUpper(in) {
					errs <- fmt.Errorf("%s: %q %v", in, b, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if tr.pool.n > 4 {
		t.Errorf("%d idle connections, more than the 4 allowed per host", tr.pool.n)
	}
	if n := accepted.Load(); n > workers*each/4 {
		t.Errorf("%d connections for %d requests: connections are not reused", n, workers*each)
	}
}

func TestIdleConnectionsExpire(t *testing.T) {
	checkGoroutines(t)
	closed := make(chan struct{})
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, n int) {
		for {
			if _, _, ok := readRequest(br); !ok {
				if n == 0 {
					close(closed)
				}
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	tr := newTransport(t, Options{IdleConnTimeout: 50 * time.Millisecond})
	get(t, tr, srv.url())
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("an idle connection outlived its timeout by seconds")
	}
	tr.pool.mu.Lock()
	n := tr.pool.n
	tr.pool.mu.Unlock()
	if n != 0 {
		t.Errorf("%d idle connections after the sweep", n)
	}
	// A later request dials again.
	if code, _ := get(t, tr, srv.url()); code != 200 {
		t.Errorf("status %d", code)
	}
}

func TestOthersGoToTheFallback(t *testing.T) {
	checkGoroutines(t)
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "direct") })
	var fell []string
	fallback := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		fell = append(fell, r.Header.Get("Case"))
		return &http.Response{StatusCode: 299, Body: http.NoBody, Request: r}, nil
	})
	proxied := New(Options{Fallback: fallback, Proxy: func(*http.Request) (*url.URL, error) {
		return &url.URL{Scheme: "http", Host: "proxy.invalid"}, nil
	}})
	tr := newTransport(t, Options{Fallback: fallback})
	cases := []struct {
		name  string
		tr    http.RoundTripper
		build func() *http.Request
	}{
		{"https", tr, func() *http.Request { r, _ := http.NewRequest("GET", "https://127.0.0.1:1/", nil); return r }},
		{"upgrade", tr, func() *http.Request {
			r, _ := http.NewRequest("GET", srv.URL, nil)
			r.Header.Set("Upgrade", "websocket")
			r.Header.Set("Connection", "Upgrade")
			return r
		}},
		{"expect", tr, func() *http.Request {
			r, _ := http.NewRequest("POST", srv.URL, strings.NewReader("x"))
			r.Header.Set("Expect", "100-continue")
			return r
		}},
		{"once-only body", tr, func() *http.Request {
			r, _ := http.NewRequest("POST", srv.URL, io.MultiReader(strings.NewReader("x")))
			return r
		}},
		{"proxy", proxied, func() *http.Request { r, _ := http.NewRequest("GET", srv.URL, nil); return r }},
	}
	for _, c := range cases {
		r := c.build()
		r.Header.Set("Case", c.name)
		resp, err := c.tr.RoundTrip(r)
		if err != nil || resp.StatusCode != 299 {
			t.Errorf("%s: %v %v, want the fallback's 299", c.name, resp, err)
		}
	}
	if len(fell) != len(cases) {
		t.Errorf("fallback saw %q", fell)
	}
	// A plain request is served directly.
	if _, body := get(t, tr, srv.URL); body != "direct" {
		t.Errorf("plain request: %q", body)
	}
}

func TestBodilessResponsesFreeTheConnectionAtOnce(t *testing.T) {
	checkGoroutines(t)
	srv, accepted := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	tr := newTransport(t, Options{})
	for range 3 {
		for _, m := range []string{"GET", "HEAD"} {
			req, _ := http.NewRequest(m, srv.URL, nil)
			resp, err := tr.RoundTrip(req)
			if err != nil || resp.StatusCode != 204 {
				t.Fatalf("%v %v", resp, err)
			}
			// Not closed: the connection was released with the header.
		}
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}
