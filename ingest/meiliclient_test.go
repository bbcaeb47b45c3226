package ingest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestClientRetries429And5xxThenSucceeds(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusBadGateway)
		default:
			w.Write([]byte(`{"uid":"docs"}`))
		}
	}))
	defer srv.Close()
	c := &MeiliClient{URL: srv.URL, Backoff: time.Millisecond}
	var out struct{ UID string }
	if err := c.do(context.Background(), http.MethodGet, "/indexes/docs", nil, &out); err != nil || out.UID != "docs" {
		t.Fatalf("err %v out %+v after %d calls", err, out, calls.Load())
	}
	if calls.Load() != 3 {
		t.Fatalf("%d calls, want 3", calls.Load())
	}
}

func TestClientDoesNotRetryClientErrorsAndGivesUp(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path == "/bad" {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"message":"Missing field ` + "`uid`" + `","code":"missing_index_uid"}`))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c := &MeiliClient{URL: srv.URL, Backoff: time.Millisecond, Retries: 2}
	err := c.do(context.Background(), http.MethodPost, "/bad", map[string]any{}, nil)
	var api *APIError
	if !errors.As(err, &api) || api.Code != "missing_index_uid" || calls.Load() != 1 {
		t.Fatalf("err %v after %d calls: a 400 is final", err, calls.Load())
	}
	calls.Store(0)
	if err := c.do(context.Background(), http.MethodGet, "/down", nil, nil); err == nil || calls.Load() != 3 {
		t.Fatalf("err %v after %d calls, want giving up after 3", err, calls.Load())
	}
}
