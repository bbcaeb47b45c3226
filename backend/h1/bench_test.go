package h1

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRoundTrip: a 5 KB POST answered with 4 KB (the size of a
// prompt and of a small retrieval) over loopback, through this transport
// and through net/http's configured as backend.HTTPClient configures it.
// cpu-ns/op is the process's CPU a request, the test server's included
// (the same server in both); serial is one caller, parallel 32.
func BenchmarkRoundTrip(b *testing.B) {
	answer := []byte(strings.Repeat("a", 4<<10))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	defer srv.Close()
	prompt := bytes.Repeat([]byte("p"), 5<<10)
	nethttp := func() http.RoundTripper {
		return &http.Transport{
			Proxy:                  http.ProxyFromEnvironment,
			DialContext:            (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:           512,
			MaxIdleConnsPerHost:    256,
			IdleConnTimeout:        90 * time.Second,
			MaxResponseHeaderBytes: 64 << 10,
			WriteBufferSize:        32 << 10,
			ReadBufferSize:         32 << 10,
			ForceAttemptHTTP2:      true,
		}
	}
	transports := []struct {
		name string
		make func() http.RoundTripper
	}{
		{"h1", func() http.RoundTripper { return New(Options{Fallback: nethttp()}) }},
		{"nethttp", nethttp},
	}
	for _, mode := range []string{"serial", "parallel"} {
		for _, tc := range transports {
			b.Run(mode+"/"+tc.name, func(b *testing.B) {
				client := &http.Client{Transport: tc.make()}
				defer client.CloseIdleConnections()
				one := func() {
					resp, err := client.Post(srv.URL, "application/json", bytes.NewReader(prompt))
					if err != nil {
						b.Fatal(err)
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if n != int64(len(answer)) {
						b.Fatalf("read %d bytes", n)
					}
				}
				one()
				b.ReportAllocs()
				cpu := processCPU()
				b.ResetTimer()
				if mode == "serial" {
					for range b.N {
						one()
					}
				} else {
					b.SetParallelism(16)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							one()
						}
					})
				}
				b.StopTimer()
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// processCPU is the process's user and system CPU time in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkIdleCheck: what taking an idle connection adds (conn.alive:
// one non-blocking peek system call).
func BenchmarkIdleCheck(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	tr := New(Options{Fallback: http.DefaultTransport})
	defer tr.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c := tr.pool.take(strings.TrimPrefix(srv.URL, "http://"))
	if c == nil {
		b.Fatal("no idle connection")
	}
	defer c.close()
	b.ReportAllocs()
	for b.Loop() {
		if !c.alive() {
			b.Fatal("an open connection reads as closed")
		}
	}
}
