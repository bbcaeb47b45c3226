package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wikigate/wikigate/backend"
)

// MeiliClient speaks the write side of Meilisearch (upstreams/meilisearch/
// INGEST.md) with a key holding the write actions (the master key in
// development).
type MeiliClient struct {
	URL string
	Key string
	// HTTP defaults to a client with a 30s timeout.
	HTTP *http.Client
	// Retries is how many times a 429, 5xx or transport failure is retried
	// (default 4), waiting Backoff (default 200ms) doubled each time, or the
	// server's Retry-After when it sends one.
	Retries int
	Backoff time.Duration
	// TaskTimeout bounds the wait for one task (default 2m); PollEvery is the
	// polling interval (default 50ms: there is no long-poll; docs/backends.md,
	// Meilisearch "Write side").
	TaskTimeout time.Duration
	PollEvery   time.Duration
}

// APIError is a Meilisearch error body with its HTTP status (0 for a
// task's error).
type APIError struct {
	Status int `json:"-"`
	backend.MeiliError
}

func (e *APIError) Error() string {
	return fmt.Sprintf("meilisearch %d %s: %s", e.Status, e.Code, e.Message)
}

// do sends one request, retrying what may succeed later, and decodes a 2xx
// answer into out.
func (c *MeiliClient) do(ctx context.Context, method, path string, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	tries, wait := retrySettings(c.Retries, c.Backoff)
	return withRetries(ctx, tries, wait, method+" "+path,
		func() (time.Duration, error) { return c.once(ctx, method, path, payload, out) }, retryable)
}

func retryable(err error) bool {
	var api *APIError
	if errors.As(err, &api) {
		return retryableStatus(api.Status)
	}
	return isTransport(err)
}

func (c *MeiliClient) once(ctx context.Context, method, path string, payload []byte, out any) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.URL, "/")+path, bytes.NewReader(payload))
	if err != nil {
		return 0, err
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	ans, err := exchange(ctx, c.HTTP, 30*time.Second, req)
	if err != nil {
		return 0, err
	}
	if ans.status/100 != 2 {
		api := &APIError{Status: ans.status}
		if json.Unmarshal(ans.body, &api.MeiliError) != nil || api.Message == "" {
			api.Message = strings.TrimSpace(string(ans.body))
		}
		return ans.retryAfter, api
	}
	if out == nil || len(ans.body) == 0 {
		return 0, nil
	}
	return 0, json.Unmarshal(ans.body, out)
}

// taskRef is the summarized task of a 202 answer.
type taskRef struct {
	TaskUID int `json:"taskUid"`
}

// taskView is the part of GET /tasks/{uid} ingest reads.
type taskView struct {
	Status string    `json:"status"`
	Type   string    `json:"type"`
	Error  *APIError `json:"error"`
}

// write sends a write request and waits for its task: the HTTP 202 says only
// that the task was queued; its outcome is in the task (docs/backends.md,
// "Meilisearch wire details", Tasks).
func (c *MeiliClient) write(ctx context.Context, method, path string, body any) error {
	var ref taskRef
	if err := c.do(ctx, method, path, body, &ref); err != nil {
		return err
	}
	return c.waitTask(ctx, ref.TaskUID)
}

// waitTask polls the task until it is final; a failed or canceled task is
// an error carrying the engine's code.
func (c *MeiliClient) waitTask(ctx context.Context, uid int) error {
	timeout, every := c.TaskTimeout, c.PollEvery
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	if every <= 0 {
		every = 50 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		var t taskView
		if err := c.do(ctx, http.MethodGet, "/tasks/"+strconv.Itoa(uid), nil, &t); err != nil {
			return fmt.Errorf("waiting for task %d: %w", uid, err)
		}
		switch t.Status {
		case "succeeded":
			return nil
		case "failed", "canceled":
			if t.Error == nil {
				t.Error = &APIError{MeiliError: backend.MeiliError{Code: t.Status, Message: "task " + t.Status}}
			}
			return fmt.Errorf("task %d (%s) %s: %w", uid, t.Type, t.Status, t.Error)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("task %d (%s) still %s: %w", uid, t.Type, t.Status, ctx.Err())
		case <-time.After(every):
		}
	}
}
