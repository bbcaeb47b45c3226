package h1

import (
	"bufio"
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

// TestLostAfterTheServerReadItRetriesOnlyIdempotent: on a reused
// connection the server reads the second request whole and closes without
// answering. A POST may have been acted on: it is not sent again and its
// error returns; a GET, or a POST with an Idempotency-Key, is sent once
// more on a new connection, as net/http's Transport does.
func TestLostAfterTheServerReadItRetriesOnlyIdempotent(t *testing.T) {
	cases := []struct {
		name, method, header string
		retried              bool
	}{
		{"POST", http.MethodPost, "", false},
		{"GET", http.MethodGet, "", true},
		{"POST with Idempotency-Key", http.MethodPost, "Idempotency-Key", true},
		{"POST with X-Idempotency-Key", http.MethodPost, "X-Idempotency-Key", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkGoroutines(t)
			var mu sync.Mutex
			seen := map[string]int{}
			srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, n int) {
				for i := 0; ; i++ {
					req, body, ok := readRequest(br)
					if !ok {
						return
					}
					mu.Lock()
					seen[req.URL.Path+" "+string(body)]++
					mu.Unlock()
					if n == 0 && i == 1 {
						return // read it, then close unanswered
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
			})
			tr := newTransport(t, Options{})
			get(t, tr, srv.url()+"/first")
			req, _ := http.NewRequest(tc.method, srv.url()+"/second", strings.NewReader("payload"))
			if tc.method == http.MethodGet {
				req, _ = http.NewRequest(tc.method, srv.url()+"/second", nil)
			}
			if tc.header != "" {
				req.Header.Set(tc.header, "k-1")
			}
			resp, err := tr.RoundTrip(req)
			if err == nil {
				io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			key := "/second payload"
			if tc.method == http.MethodGet {
				key = "/second "
			}
			mu.Lock()
			got := seen[key]
			mu.Unlock()
			want, conns := 1, int64(1)
			if tc.retried {
				want, conns = 2, 2
				if err != nil {
					t.Fatalf("retried request failed: %v", err)
				}
			} else if err == nil {
				t.Fatal("a POST the server read and left unanswered succeeded: it was sent again")
			}
			if got != want {
				t.Errorf("server read the request %d times, want %d", got, want)
			}
			if n := srv.accepted.Load(); n != conns {
				t.Errorf("%d connections, want %d", n, conns)
			}
		})
	}
}

// TestStaleBytesOnAnIdleConnectionDropIt: a server that sent an answer
// nobody asked for (a second response after the first) leaves bytes on
// the idle connection; the next request must not read them as its answer.
// They sit either in the connection's buffer (sent with the answer, read
// with it) or on the socket (sent after the connection went idle).
func TestStaleBytesOnAnIdleConnectionDropIt(t *testing.T) {
	const stale = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale"
	for _, later := range []bool{false, true} {
		t.Run(fmt.Sprintf("after the answer went idle=%v", later), func(t *testing.T) {
			checkGoroutines(t)
			idle := make(chan struct{})
			written := make(chan struct{})
			srv := newRawServer(t, func(c net.Conn, br *bufio.Reader, n int) {
				for {
					if _, _, ok := readRequest(br); !ok {
						return
					}
					if n > 0 {
						io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh")
						continue
					}
					if !later {
						io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"+stale)
						continue
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
					<-idle
					io.WriteString(c, stale)
					close(written)
				}
			})
			tr := newTransport(t, Options{})
			if _, body := get(t, tr, srv.url()); body != "ok" {
				t.Fatalf("first answer %q", body)
			}
			if later {
				close(idle)
				<-written
				// Loopback delivers at once; leave the bytes time to land.
				time.Sleep(20 * time.Millisecond)
			}
			if _, body := get(t, tr, srv.url()); body != "fresh" {
				t.Errorf("second request read %q, want a new connection's %q", body, "fresh")
			}
			if n := srv.accepted.Load(); n != 2 {
				t.Errorf("%d connections, want 2", n)
			}
		})
	}
}

// TestMayRetry holds the retry rule to net/http's: a request none of
// whose bytes the socket took is sent again whatever its method; one that
// left is sent again only when no answer byte came, the connection was
// lost, and it is idempotent.
func TestMayRetry(t *testing.T) {
	post := func(h string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, "http://x/", strings.NewReader("b"))
		if h != "" {
			r.Header[h] = nil // present, as net/http's Header.has counts it
		}
		return r
	}
	getReq, _ := http.NewRequest(http.MethodGet, "http://x/", nil)
	optsReq, _ := http.NewRequest(http.MethodOptions, "http://x/", nil)
	putReq, _ := http.NewRequest(http.MethodPut, "http://x/", strings.NewReader("b"))
	eof := fmt.Errorf("h1: reading response: %w", io.ErrUnexpectedEOF)
	reset := fmt.Errorf("h1: writing request: %w", syscall.ECONNRESET)
	other := errors.New("h1: server response headers exceeded 10 bytes; aborted")
	cases := []struct {
		name            string
		nwritten, nread int64
		req             *http.Request
		err             error
		want            bool
	}{
		{"POST nothing written", 0, 0, post(""), reset, true},
		{"POST written, lost", 100, 0, post(""), eof, false},
		{"POST written, reset while writing", 100, 0, post(""), reset, false},
		{"PUT written, lost", 100, 0, putReq, eof, false},
		{"GET written, lost", 100, 0, getReq, eof, true},
		{"OPTIONS written, reset", 100, 0, optsReq, reset, true},
		{"GET after an answer byte", 100, 1, getReq, eof, false},
		{"GET other error", 100, 0, getReq, other, false},
		{"POST Idempotency-Key lost", 100, 0, post("Idempotency-Key"), eof, true},
		{"POST X-Idempotency-Key lost", 100, 0, post("X-Idempotency-Key"), eof, true},
	}
	for _, tc := range cases {
		c := &conn{nwritten: tc.nwritten, nread: tc.nread}
		if got := mayRetry(c, tc.req, tc.err); got != tc.want {
			t.Errorf("%s: mayRetry %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestIdleCheckAllocatesNothing: the check runs on every reuse.
func TestIdleCheckAllocatesNothing(t *testing.T) {
	checkGoroutines(t)
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	tr := newTransport(t, Options{})
	get(t, tr, srv.URL)
	c := tr.pool.take(hostKey(mustURL(t, srv.URL)))
	if c == nil {
		t.Fatal("no idle connection")
	}
	defer c.close()
	if c.rc == nil {
		t.Fatal("a TCP connection has no raw access")
	}
	if !c.alive() {
		t.Fatal("an open idle connection reads as closed")
	}
	if n := testing.AllocsPerRun(100, func() { c.alive() }); n != 0 {
		t.Errorf("the idle check allocates %v times", n)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
