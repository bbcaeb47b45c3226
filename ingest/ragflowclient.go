package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wikigate/wikigate/backend"
)

// RAGFlowClient speaks the write side of RAGFlow's HTTP API (upstreams/
// ragflow/INGEST.md) with an API key of the tenant that owns the datasets.
type RAGFlowClient struct {
	URL string
	Key string
	// HTTP defaults to a client with a 60s timeout (uploads can be large).
	HTTP *http.Client
	// Retries and Backoff: as MeiliClient's (429, 5xx, transport failures).
	Retries int
	Backoff time.Duration
	// ParseTimeout bounds the wait for one dataset's parsing (default 10m);
	// PollEvery is the polling interval (default 1s, as RAGFlow's SDK).
	ParseTimeout time.Duration
	PollEvery    time.Duration
}

// RAGFlowError is an answer that is not a successful envelope
// (backend.CheckRAGFlow): an error code (RAGFlow answers HTTP 200 for the
// errors of an authenticated call; docs/backends.md, "RAGFlow wire details",
// Envelope), an error status, G1's code-0 auth failure, or a body that is
// not an envelope.
type RAGFlowError struct {
	Status  int
	Code    int
	Message string
}

func (e *RAGFlowError) Error() string {
	if e.Code == 0 {
		return fmt.Sprintf("ragflow HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("ragflow code %d: %s", e.Code, e.Message)
}

// ragflowError is ingest's report of a refused answer: the envelope's
// message, or what was wrong and how the body began.
func ragflowError(ans answer, r *backend.RAGFlowRefusal) *RAGFlowError {
	e := &RAGFlowError{Status: ans.status, Code: r.Code, Message: r.Message}
	switch {
	case r.Kind == backend.BadResponse:
		e.Message = "not a RAGFlow envelope (" + r.Why + "): " + snippet(ans.body)
	case r.Why != "":
		e.Message = r.Why + ": " + r.Message
	case e.Message == "":
		e.Message = snippet(ans.body)
	}
	return e
}

// request is one call: a JSON body, or a multipart file.
type request struct {
	method, path string
	query        url.Values
	json         any
	file         *uploadFile
}

type uploadFile struct{ name, content string }

// call sends req (retrying what may succeed later) and decodes data into out.
func (c *RAGFlowClient) call(ctx context.Context, req request, out any) error {
	tries, wait := retrySettings(c.Retries, c.Backoff)
	var env *backend.RAGFlowEnvelope
	err := withRetries(ctx, tries, wait, req.method+" "+req.path, func() (retryAfter time.Duration, err error) {
		env, retryAfter, err = c.once(ctx, req)
		return retryAfter, err
	}, ragflowRetryable)
	if err != nil {
		return err
	}
	if out == nil || len(env.Data) == 0 {
		return nil
	}
	return json.Unmarshal(env.Data, out)
}

// ragflowRetryable: 429 and 5xx answers and transport failures; an error
// envelope (HTTP 200) is final.
func ragflowRetryable(err error) bool {
	var e *RAGFlowError
	if errors.As(err, &e) {
		return retryableStatus(e.Status)
	}
	return isTransport(err)
}

// once sends req once and reads its answer as an envelope; retryAfter is
// the answer's Retry-After.
func (c *RAGFlowClient) once(ctx context.Context, req request) (*backend.RAGFlowEnvelope, time.Duration, error) {
	body, contentType, err := req.encode()
	if err != nil {
		return nil, 0, err
	}
	target := strings.TrimSuffix(c.URL, "/") + req.path
	if len(req.query) > 0 {
		target += "?" + req.query.Encode()
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, target, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	if contentType != "" {
		hr.Header.Set("Content-Type", contentType)
	}
	hr.Header.Set("Authorization", "Bearer "+c.Key)
	ans, err := exchange(ctx, c.HTTP, 60*time.Second, hr)
	if err != nil {
		return nil, 0, err
	}
	env, refusal := backend.DecodeRAGFlow(ans.status, ans.header, ans.body)
	if refusal != nil {
		return nil, ans.retryAfter, ragflowError(ans, refusal)
	}
	return env, 0, nil
}

// encode builds the body anew for every attempt (a reader is spent).
func (r request) encode() ([]byte, string, error) {
	switch {
	case r.file != nil:
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		part, err := mw.CreateFormFile("file", r.file.name)
		if err == nil {
			_, err = io.WriteString(part, r.file.content)
		}
		if err == nil {
			err = mw.Close()
		}
		return buf.Bytes(), mw.FormDataContentType(), err
	case r.json != nil:
		raw, err := json.Marshal(r.json)
		return raw, "application/json", err
	}
	return nil, "", nil
}

func snippet(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
