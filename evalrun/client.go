package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Gate asks a running gate through its public routes.
type Gate struct {
	URL     string        // base URL, e.g. http://127.0.0.1:8080
	Timeout time.Duration // per request
	Client  *http.Client
	Getenv  func(string) string // default os.Getenv; tokens are read, never printed
}

// ErrGate marks a failure of the gate or of the evaluation's own setup (a
// transport error, a 5xx, a refused credential, an unreadable body): the
// figures would not say anything about answer quality.
var ErrGate = errors.New("gate error")

// hit, citation and answer hold the parts of the protocol's bodies scored.
type searchBody struct {
	Hits []struct {
		Path string `json:"path"`
	} `json:"hits"`
}

type answerBody struct {
	Answer    string `json:"answer"`
	Citations []struct {
		Path string `json:"path"`
	} `json:"citations"`
	Confidence     string `json:"confidence"`
	NoAnswerReason *struct {
		Reason string `json:"reason"`
	} `json:"noAnswerReason"`
	RelatedPages []struct {
		Path string `json:"path"`
	} `json:"relatedPages"`
}

// reply is one route's outcome.
type reply struct {
	status  int
	denied  bool // a 403: the gate refused the call (a correct outcome of a restricted case)
	latency time.Duration
	body    []byte

	retryAfter string // a 429's Retry-After header
}

func (g *Gate) routes(kind string) (search, ask string) {
	if kind == CallerAgent || kind == CallerAPIKey {
		return "/agent/tools/search", "/agent/tools/ask"
	}
	return "/answer/search", "/answer/ask"
}

func (g *Gate) credential(c Caller) (header, value string, err error) {
	if c.Kind == CallerAnonymous {
		return "", "", nil
	}
	getenv := g.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	v := strings.TrimSpace(getenv(c.TokenEnv))
	if v == "" {
		return "", "", fmt.Errorf("%w: environment variable %s (the credential of a caller of kind %s) is empty", ErrGate, c.TokenEnv, c.Kind)
	}
	if c.Kind == CallerAPIKey {
		return "X-Agent-Api-Key", v, nil
	}
	return "Authorization", "Bearer " + v, nil
}

// requestBody is the standard request of search and ask.
func requestBody(c Case, limit int) []byte {
	body := map[string]any{"question": c.Question}
	if c.Scope != nil {
		body["scope"] = c.Scope
	}
	if c.Page != nil {
		body["page"] = c.Page
	}
	if limit > 0 {
		body["limit"] = limit
	}
	b, _ := json.Marshal(body)
	return b
}

// Rate-limited calls are retried after the gate's Retry-After for as long
// as the waits of one call add up to no more than maxRetryWait: an
// evaluation run outgrows a gate's per-caller ask budget (anonymous
// callers share one), and a 429 says nothing about answer quality. The
// bound is time, not a count: with several cases asked at once, a call can
// lose the freed slot to another several times in a row.
const maxRetryWait = 3 * time.Minute

// post sends one call, retrying a 429 as the gate's Retry-After says.
func (g *Gate) post(ctx context.Context, route, header, value string, body []byte) (reply, error) {
	var waited time.Duration
	for {
		r, err := g.postOnce(ctx, route, header, value, body)
		wait, limited := retryAfter(r)
		if !limited || waited+wait > maxRetryWait {
			return r, err
		}
		waited += wait
		select {
		case <-ctx.Done():
			return r, err
		case <-time.After(wait):
		}
	}
}

// retryAfter reads a 429's Retry-After (seconds; at least one).
func retryAfter(r reply) (time.Duration, bool) {
	if r.status != http.StatusTooManyRequests {
		return 0, false
	}
	secs, err := strconv.Atoi(r.retryAfter)
	if err != nil || secs < 1 {
		secs = 1
	}
	return time.Duration(secs) * time.Second, true
}

// postOnce sends one call. A 2xx or a 403 is an outcome; anything else is
// a gate error, named by the route, status and the protocol's error code
// (never the credential).
func (g *Gate) postOnce(ctx context.Context, route, header, value string, body []byte) (reply, error) {
	ctx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(g.URL, "/")+route, bytes.NewReader(body))
	if err != nil {
		return reply{}, fmt.Errorf("%w: %v", ErrGate, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if header != "" {
		req.Header.Set(header, value)
	}
	start := time.Now()
	resp, err := g.Client.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%w: %s: %v", ErrGate, route, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	r := reply{status: resp.StatusCode, latency: time.Since(start), body: b, retryAfter: resp.Header.Get("Retry-After")}
	switch {
	case err != nil:
		return r, fmt.Errorf("%w: %s: reading the body: %v", ErrGate, route, err)
	case resp.StatusCode == http.StatusForbidden:
		r.denied = true
		return r, nil
	case resp.StatusCode/100 != 2:
		return r, fmt.Errorf("%w: %s: %d %s", ErrGate, route, resp.StatusCode, errorCode(b))
	}
	return r, nil
}

func errorCode(b []byte) string {
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) != nil || e.Error.Code == "" {
		return "(no protocol error body)"
	}
	return e.Error.Code + ": " + e.Error.Message
}

// Ask runs one case: a search (limit 10) and an ask, as its caller.
func (g *Gate) Ask(ctx context.Context, s *Set, c Case) Observation {
	o := Observation{}
	caller := s.Callers[c.Caller]
	header, value, err := g.credential(caller)
	if err != nil {
		o.Err = err
		return o
	}
	searchRoute, askRoute := g.routes(caller.Kind)
	sr, err := g.post(ctx, searchRoute, header, value, requestBody(c, 10))
	if err != nil {
		o.Err = err
		return o
	}
	o.SearchLatency, o.SearchDenied = sr.latency, sr.denied
	if !sr.denied {
		var b searchBody
		if err := json.Unmarshal(sr.body, &b); err != nil {
			o.Err = fmt.Errorf("%w: %s: body is not a search result: %v", ErrGate, searchRoute, err)
			return o
		}
		for _, h := range b.Hits {
			o.SearchPaths = append(o.SearchPaths, h.Path)
		}
	}
	ar, err := g.post(ctx, askRoute, header, value, requestBody(c, 0))
	if err != nil {
		o.Err = err
		return o
	}
	o.AskLatency, o.AskDenied = ar.latency, ar.denied
	if ar.denied {
		return o
	}
	var b answerBody
	if err := json.Unmarshal(ar.body, &b); err != nil {
		o.Err = fmt.Errorf("%w: %s: body is not an answer: %v", ErrGate, askRoute, err)
		return o
	}
	o.NoAnswer, o.Confidence = b.NoAnswerReason != nil, b.Confidence
	for _, ci := range b.Citations {
		o.CitedPaths = append(o.CitedPaths, ci.Path)
	}
	for _, p := range b.RelatedPages {
		o.RelatedPaths = append(o.RelatedPaths, p.Path)
	}
	return o
}
