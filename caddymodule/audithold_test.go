package caddymodule

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/audit"
)

// lateRecord answers at once, then (as the gateway's audit record does)
// blocks until the test lets it end.
func lateRecord(body string, recorded chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, body)
		<-recorded
	})
}

// getBody fetches url and sends its body, or the error, on the channel.
func getBody(url string) chan string {
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get(url)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	return got
}

// With a durable audit file open, an answer reaches the caller only once
// the call's record was written (the handler returned); without one, the
// answer is written straight to the connection, as before.
func TestAnswerIsHeldUntilTheRecordLands(t *testing.T) {
	var passedThrough bool
	serveAudited(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, held := w.(*heldResponse)
		passedThrough = !held
	}), httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/agent/tools/search", nil))
	if !passedThrough {
		t.Fatal("without a durable audit file the answer is held")
	}

	cf, err := audit.OpenChainFile(filepath.Join(t.TempDir(), "audit.log"), audit.BatchOptions{Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	body := strings.Repeat("x", 64<<10) // past net/http's own buffers
	recorded := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveAudited(lateRecord(body, recorded), w, r)
	}))
	defer srv.Close()
	got := getBody(srv.URL)
	select {
	case b := <-got:
		t.Fatalf("the answer (%d bytes) arrived before its record was written", len(b))
	case <-time.After(300 * time.Millisecond):
	}
	close(recorded)
	if b := <-got; b != body {
		t.Fatalf("held answer: %d bytes, want %d", len(b), len(body))
	}
}

// A held stream still sends each event when it is flushed.
func TestHeldStreamSendsFlushedEvents(t *testing.T) {
	cf, err := audit.OpenChainFile(filepath.Join(t.TempDir(), "audit.log"), audit.BatchOptions{Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	end := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveAudited(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: status\ndata: {}\n\n")
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Error(err)
			}
			<-end
		}), w, r)
	}))
	defer srv.Close()
	defer close(end)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line := make(chan string, 1)
	go func() { l, _ := bufio.NewReader(resp.Body).ReadString('\n'); line <- l }()
	select {
	case l := <-line:
		if l != "event: status\n" {
			t.Fatalf("first line %q", l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a flushed event was held")
	}
}
