// Command standin is the benchmark's stand-in Meilisearch: it answers every
// search with the same realistic body (fixture.MeiliSearch, about 4 KB by
// default) as fast as a Go server can, so the load runs measure Caddy and
// the gate rather than a search engine. It listens on loopback only.
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
	flag.Parse()
	if host, _, err := net.SplitHostPort(*addr); err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("standin: %q is not a loopback address", *addr)
	}
	body, hits, err := fixture.MeiliSearch(*size)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: *addr, Handler: handler(body), ReadHeaderTimeout: 5 * time.Second}
	fmt.Printf("standin: %s, search body %d bytes, %d hits\n", *addr, len(body), hits)
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
