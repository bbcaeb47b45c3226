// Command standin is the benchmark's stand-in backend, so that the load runs
// measure Caddy and the gate rather than a search engine or a model. It
// listens on loopback only.
//
// By default it is a stand-in Meilisearch: it answers every search with the
// same realistic body (fixture.MeiliSearch, about 4 KB by default) as fast
// as a Go server can.
//
// With -ragflow-record URL it is a stand-in RAGFlow instead, for benchmarks
// that repeat one question (bench/askcost.sh and bench/run.sh's run C): the
// first POST /api/v1/retrieval and the first POST /api/v1/chat/completions
// are forwarded to the RAGFlow at URL (headers, Authorization included, and
// body), and that route's first 200 answer (status, headers, body up to
// -ragflow-max-body bytes) is kept and sent for every later request on the
// route without asking the upstream again: the request body is ignored from
// then on, so a different question gets the first one's answer. An event
// stream (text/event-stream) is written one event at a time with a flush
// after each, as RAGFlow streams it. A non-200 answer, a 200 carrying a
// RAGFlow error (a "code" other than 0 in its body or an event), or one
// larger than the cap, is passed through and not kept. Every other request (the gate's
// health check among them) is proxied to URL as it is.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wikigate/wikigate/bench/internal/fixture"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen address (loopback)")
	size := flag.Int("size", 4096, "search response body size in bytes (at least)")
	ragflow := flag.String("ragflow-record", "", "be a stand-in RAGFlow that records this RAGFlow's first answer per route and replays it")
	maxBody := flag.Int("ragflow-max-body", 4<<20, "largest RAGFlow answer body kept, in bytes (a larger one is passed through)")
	flag.Parse()
	if host, _, err := net.SplitHostPort(*addr); err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("standin: %q is not a loopback address", *addr)
	}
	if *ragflow != "" {
		serveRAGFlow(*addr, *ragflow, *maxBody)
		return
	}
	body, hits, err := fixture.MeiliSearch(*size)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: *addr, Handler: handler(body), ReadHeaderTimeout: 5 * time.Second}
	fmt.Printf("standin: %s, search body %d bytes, %d hits\n", *addr, len(body), hits)
	log.Fatal(srv.ListenAndServe())
}

// serveRAGFlow runs the stand-in RAGFlow on addr, recording from upstream.
func serveRAGFlow(addr, upstream string, maxBody int) {
	u, err := parseUpstream(upstream)
	if err != nil {
		log.Fatalf("standin: -ragflow-record: %v", err)
	}
	if maxBody < 1 {
		log.Fatalf("standin: -ragflow-max-body must be positive")
	}
	srv := &http.Server{Addr: addr, Handler: newRecorder(u, maxBody), ReadHeaderTimeout: 5 * time.Second}
	fmt.Printf("standin: %s, a RAGFlow replaying the first answers of %s (bodies up to %d bytes)\n", addr, u.Redacted(), maxBody)
	log.Fatal(srv.ListenAndServe())
}

// handler answers POST /indexes/{uid}/search with body and GET /health
// like Meilisearch; anything else is a 404.
func handler(body []byte) http.Handler {
	length := strconv.Itoa(len(body))
	health := []byte(`{"status":"available"}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/indexes/") && strings.HasSuffix(r.URL.Path, "/search"):
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", length)
			_, _ = w.Write(body)
		case r.Method == http.MethodGet && r.URL.Path == "/health":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(health)
		default:
			http.NotFound(w, r)
		}
	})
}
