package ragflow

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetrieveFailures(t *testing.T) {
	cases := []struct {
		name        string
		status      int
		contentType string
		body        string
		file        string
		kind        ErrorKind
		code        int
		httpStatus  int
	}{
		{name: "dataset not owned, HTTP 200 code 102", status: 200, file: "error.dataset_not_owned.json", kind: Rejected, code: 102, httpStatus: 200},
		{name: "G2 invalid key, HTTP 401", status: 401, file: "error.invalid_key.json", kind: Rejected, code: 401, httpStatus: 401},
		{name: "G1 invalid key, HTTP 200 code 109", status: 200, file: "v0.24.0/error.invalid_key.json", kind: Rejected, code: 109, httpStatus: 200},
		{name: "G1 missing key, HTTP 200 code 0 data false", status: 200, file: "v0.24.0/error.missing_key.json", kind: Rejected, httpStatus: 200},
		{name: "route not found, HTTP 404", status: 404, file: "derived/error.route_not_found.json", kind: Rejected, code: 404, httpStatus: 404},
		{name: "G1 bad auth format", status: 200, body: `{"code": 0, "message": "Please check your authorization format.", "data": false}`, kind: Rejected, httpStatus: 200},
		{name: "proxy error page", status: 502, contentType: "text/html", body: "<html><body>Bad Gateway</body></html>", kind: Rejected, httpStatus: 502},
		{name: "server error, no body", status: 500, kind: Rejected, httpStatus: 500},
		{name: "HTML with 200", status: 200, contentType: "text/html; charset=utf-8", body: "<!doctype html><title>login</title>", kind: BadResponse},
		{name: "HTML without content type", status: 200, body: "<html>oops</html>", kind: BadResponse},
		{name: "invalid JSON", status: 200, body: `{"code": 0, "data": {"chunks": [`, kind: BadResponse},
		{name: "trailing garbage", status: 200, body: `{"code": 0, "data": {"chunks": []}} x`, kind: BadResponse},
		{name: "no envelope code", status: 200, body: `{"data": {"chunks": []}}`, kind: BadResponse},
		{name: "data false without auth message", status: 200, body: `{"code": 0, "data": false}`, kind: BadResponse},
		{name: "data is a list", status: 200, body: `{"code": 0, "data": []}`, kind: BadResponse},
		{name: "chunks of the wrong type", status: 200, body: `{"code": 0, "data": {"chunks": "none"}}`, kind: BadResponse},
		{name: "method not allowed as code 100", status: 200, body: `{"code":100,"message":"<MethodNotAllowed '405: Method Not Allowed'>"}`, kind: Rejected, code: 100, httpStatus: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if tc.file != "" {
				body = fixture(t, tc.file)
			}
			ct := tc.contentType
			if ct == "" && len(body) > 0 && body[0] == '{' {
				ct = "application/json"
			}
			c := newTestClient(t, serveReply(t, tc.status, ct, body).URL)
			got, err := c.Retrieve(t.Context(), kgentParams)
			if got != nil {
				t.Errorf("a failure returned a retrieval: %+v", got)
			}
			e := asError(t, err, tc.kind)
			if e.Code != tc.code || e.HTTPStatus != tc.httpStatus {
				t.Errorf("code %d http %d, want %d %d", e.Code, e.HTTPStatus, tc.code, tc.httpStatus)
			}
			assertProtocolError(t, e)
		})
	}
}

// assertProtocolError checks what a client would see: ragflow_unavailable,
// 502 only for garbage, and nothing of the backend's words.
func assertProtocolError(t *testing.T, e *Error) {
	t.Helper()
	pe := e.ProtocolError()
	want := http.StatusServiceUnavailable
	if e.Kind == BadResponse {
		want = http.StatusBadGateway
	}
	if pe.Code != "ragflow_unavailable" || pe.Status != want {
		t.Errorf("protocol error = %+v, want ragflow_unavailable %d", pe, want)
	}
	for _, leak := range []string{"dataset", "Authorization", "API key", "Not Found", "Gateway", "code", "html"} {
		if strings.Contains(pe.Message, leak) {
			t.Errorf("protocol message %q leaks %q", pe.Message, leak)
		}
	}
}

func TestRetrieveOversizeBody(t *testing.T) {
	body := fixture(t, "retrieval.response.json")
	c := newTestClient(t, serveReply(t, 200, "application/json", body).URL,
		func(cfg *Config) { cfg.MaxResponseBytes = int64(len(body) - 1) })
	_, err := c.Retrieve(t.Context(), kgentParams)
	asError(t, err, BadResponse)

	c = newTestClient(t, serveReply(t, 200, "application/json", body).URL,
		func(cfg *Config) { cfg.MaxResponseBytes = int64(len(body)) })
	if _, err := c.Retrieve(t.Context(), kgentParams); err != nil {
		t.Errorf("a body of exactly the cap failed: %v", err)
	}
}

func TestRetrieveTimeout(t *testing.T) {
	f := serveFunc(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	c := newTestClient(t, f.URL, func(cfg *Config) { cfg.Timeout = 20 * time.Millisecond })
	_, err := c.Retrieve(t.Context(), kgentParams)
	e := asError(t, err, Timeout)
	assertProtocolError(t, e)
}

func TestRetrieveCallerCancelled(t *testing.T) {
	f := serveFunc(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	c := newTestClient(t, f.URL)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.Retrieve(ctx, kgentParams)
	asError(t, err, Unreachable)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want it to wrap context.Canceled", err)
	}
}

func TestRetrieveRefusedConnection(t *testing.T) {
	f := serveReply(t, 200, "application/json", nil)
	url := f.URL
	f.Close()
	c := newTestClient(t, url)
	_, err := c.Retrieve(t.Context(), kgentParams)
	e := asError(t, err, Unreachable)
	assertProtocolError(t, e)
	if strings.Contains(err.Error(), testKey) {
		t.Error("error carries the key")
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	elsewhere := serveReply(t, 200, "application/json", fixture(t, "retrieval.response.json"))
	f := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/api/v1/retrieval", http.StatusTemporaryRedirect)
	})
	c := newTestClient(t, f.URL)
	_, err := c.Retrieve(t.Context(), kgentParams)
	if e := asError(t, err, Rejected); e.HTTPStatus != http.StatusTemporaryRedirect {
		t.Errorf("status = %d", e.HTTPStatus)
	}
	if n := len(elsewhere.requests()); n != 0 {
		t.Errorf("the redirect target got %d requests", n)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{URL: "", APIKey: "k"},
		{URL: "ragflow:9380", APIKey: "k"},
		{URL: "ftp://ragflow", APIKey: "k"},
		{URL: "http://user:pw@ragflow", APIKey: "k"},
		{URL: "http://ragflow?x=1", APIKey: "k"},
		{URL: "http://ragflow"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("error leaks the URL's password: %v", err)
		}
	}
	c, err := New(Config{URL: "https://host/ragflow/", APIKey: "k"})
	if err != nil || c.base != "https://host/ragflow" || c.retrieval.total != DefaultRetrievalTimeout || c.generation != (limits{firstByte: DefaultFirstByteTimeout, idle: DefaultIdleTimeout}) || c.maxBytes != DefaultMaxResponseBytes {
		t.Errorf("New = %+v, %v", c, err)
	}
}

func TestHealth(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   []byte
		kind   ErrorKind
	}{
		{"healthy", 200, fixture(t, "healthz.response.json"), 0},
		{"unhealthy", 500, fixture(t, "healthz.unhealthy.response.json"), Rejected},
		{"nok with 200", 200, []byte(`{"status": "nok"}`), Rejected},
		{"html", 200, []byte("<html></html>"), BadResponse},
		{"not healthz", 200, []byte(`{"code": 0}`), BadResponse},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := serveReply(t, tc.status, "application/json", tc.body)
			err := newTestClient(t, f.URL).Health(t.Context())
			if tc.kind == 0 {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				asError(t, err, tc.kind)
			}
			r := f.requests()[0]
			if r.Method != http.MethodGet || r.Path != "/api/v1/system/healthz" || r.Auth != "" {
				t.Errorf("request = %+v (the probe needs no key)", r)
			}
		})
	}
}
