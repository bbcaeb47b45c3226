package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// reply is what the gate answered: status, the protocol error (if any) and
// the body.
type reply struct {
	status  int
	code    string // error.code, "" when not an error envelope
	message string // error.message
	body    []byte
	err     error // transport failure: no reply at all
}

func (r reply) String() string {
	switch {
	case r.err != nil:
		return "error(" + r.err.Error() + ")"
	case r.code != "":
		return fmt.Sprintf("%d %s", r.status, r.code)
	default:
		return fmt.Sprint(r.status)
	}
}

// post sends body to path with the headers (a header may repeat).
func (t *target) post(ctx context.Context, path string, header http.Header, body []byte) reply {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.base+path, bytes.NewReader(body))
	if err != nil {
		return reply{err: err}
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/json")
	return t.do(req)
}

func (t *target) get(ctx context.Context, path string) reply {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.base+path, nil)
	if err != nil {
		return reply{err: err}
	}
	return t.do(req)
}

func (t *target) do(req *http.Request) reply {
	resp, err := t.client.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	r := reply{status: resp.StatusCode, body: b, err: err}
	var env struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if json.Unmarshal(b, &env) == nil {
		r.code, r.message = env.Error.Code, env.Error.Message
	}
	return r
}

func bearer(tok string) http.Header {
	return http.Header{"Authorization": {"Bearer " + tok}}
}

// tally counts observations ("400 invalid_request" ×9) for one line.
type tally map[string]int

func (t tally) add(s string) { t[s]++ }

func (t tally) String() string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, t[k])
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// only reports whether every observation is want.
func (t tally) only(want string) bool { return len(t) == 1 && t[want] > 0 }
