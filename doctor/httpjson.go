package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// maxBody bounds what one answer may hold (a sample of documents).
const maxBody = 16 << 20

// getJSON GETs base+path with bearer (none when empty) and decodes a 2xx
// JSON body into out. Any other status is returned with the body's message
// (never the bearer), so the caller can say what the backend refused.
func getJSON(ctx context.Context, hc *http.Client, base, path, bearer string, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+path, nil)
	if err != nil {
		return 0, err
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("HTTP %d: %s", resp.StatusCode, errorMessage(body))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return resp.StatusCode, fmt.Errorf("HTTP %d: not the expected JSON: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, nil
}

// errorMessage is the message of a Meilisearch or RAGFlow error body, or
// the start of the body.
func errorMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		return fmt.Sprintf("%s (code %v)", e.Message, e.Code)
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// version is a dotted release number; the zero value is "unknown".
type version [3]int

// parseVersion reads "1.50.0", "v0.27.0" or "v0.27.0-12-gabc" (the
// leading numbers); ok is false when there are none.
func parseVersion(s string) (v version, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.SplitN(s, ".", 3)
	for i, p := range parts {
		end := strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' })
		if end >= 0 {
			p = p[:end]
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, i > 0 && ok
		}
		v[i], ok = n, true
	}
	return v, ok
}

func (v version) less(w version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }
