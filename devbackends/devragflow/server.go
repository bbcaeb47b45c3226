// Package devragflow is a development stand-in for RAGFlow: it speaks the G2
// (v0.26+) wire contract (docs/backends.md, RAGFlow) —
// envelopes, error codes and HTTP statuses, SSE framing, API-key auth — over
// the sample wiki, so wikigate runs and is tested with nothing else
// installed. Retrieval is lexical and generation extractive; the server says
// so in its version string and model names (docs/backends.md, The development
// stand-ins).
package devragflow

import (
	"errors"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wikigate/wikigate/devbackends/devlog"
	"github.com/wikigate/wikigate/samplewiki"
)

// Version is what GET /api/v1/system/version reports.
const Version = "v0.27.0-wikigate-dev"

// DefaultEmptyResponse is RAGFlow's default prompt_config.empty_response.
const DefaultEmptyResponse = "Sorry! No relevant content was found in the knowledge base!"

// Config configures a Server.
type Config struct {
	// APIKey is the one key the server accepts. Required. RAGFlow keys look
	// like "ragflow-" followed by 43 URL-safe characters; any value works.
	APIKey string
	// Corpus is the wiki to serve; nil loads samplewiki.Load().
	Corpus *samplewiki.Corpus
	// Empty starts the server as a fresh RAGFlow tenant, with no dataset
	// and no document, so `wikigate ingest` creates and loads them. A
	// dataset created under the name of one of Corpus's datasets gets that
	// dataset's id (a real RAGFlow picks a new one), so the policy catalog
	// written for the corpus (rego/data.json for the sample wiki) names the
	// datasets ingest creates.
	Empty bool
	// EmptyResponse is answered when the prompt holds nothing matching the
	// question. Default DefaultEmptyResponse.
	EmptyResponse string
	// LogSize bounds the request log ring. Default 1000.
	LogSize int
}

// Server is the development RAGFlow; it implements http.Handler.
type Server struct {
	cfg    Config
	model  *model
	log    *devlog.Ring[LoggedRequest]
	routes []route
	now    func() time.Time
	// mu lets the ingestion routes change the model while no other request
	// reads it: writers take it exclusively, every other route shared.
	mu sync.RWMutex
}

// New builds a Server over cfg.Corpus (or the embedded sample wiki).
func New(cfg Config) (*Server, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("devragflow: api key is required")
	}
	if cfg.Corpus == nil {
		c, err := samplewiki.Load()
		if err != nil {
			return nil, err
		}
		cfg.Corpus = c
	}
	if cfg.EmptyResponse == "" {
		cfg.EmptyResponse = DefaultEmptyResponse
	}
	if cfg.LogSize <= 0 {
		cfg.LogSize = 1000
	}
	s := &Server{cfg: cfg, model: startModel(cfg), log: devlog.NewRing[LoggedRequest](cfg.LogSize), now: time.Now}
	s.routes = s.routeTable()
	return s, nil
}

// startModel is the corpus as RAGFlow datasets, or, when cfg.Empty, no
// dataset yet and the corpus's dataset ids kept for their names.
func startModel(cfg Config) *model {
	if !cfg.Empty {
		return buildModel(cfg.Corpus)
	}
	m := buildModel(&samplewiki.Corpus{})
	m.reservedIDs = map[string]string{}
	for _, d := range cfg.Corpus.Datasets {
		m.reservedIDs[d.Name] = d.ID
	}
	return m
}

// handlerFunc serves one matched route; rec collects what the log keeps.
type handlerFunc func(w http.ResponseWriter, r *http.Request, rec *LoggedRequest)

// route is a path pattern ("{name}" segments are wildcards) and its methods.
type route struct {
	pattern string
	methods map[string]handlerFunc
	public  bool // no API key needed
	dev     bool // /_dev routes: key needed, not logged
	write   bool // changes the model (ingestion routes)
}

func (s *Server) routeTable() []route {
	post := func(h handlerFunc) map[string]handlerFunc { return map[string]handlerFunc{http.MethodPost: h} }
	get := func(h handlerFunc) map[string]handlerFunc { return map[string]handlerFunc{http.MethodGet: h} }
	return []route{
		{pattern: "/api/v1/retrieval", methods: post(s.handleRetrieval)},
		{pattern: "/api/v1/chat/completions", methods: post(s.handleCompletion)},
		{pattern: "/api/v1/chats/{chat_id}/completions", methods: post(s.handleCompletion)},
		{pattern: "/api/v1/datasets", methods: map[string]handlerFunc{
			http.MethodGet: s.handleDatasets, http.MethodPost: s.handleCreateDataset}, write: true},
		{pattern: "/api/v1/datasets/{dataset_id}/documents", methods: map[string]handlerFunc{
			http.MethodGet: s.handleDocuments, http.MethodPost: s.handleUpload,
			http.MethodDelete: s.handleDeleteDocuments}, write: true},
		// before {document_id}: the first matching pattern wins
		{pattern: "/api/v1/datasets/{dataset_id}/documents/parse", methods: post(s.handleParseDocuments), write: true},
		{pattern: "/api/v1/datasets/{dataset_id}/documents/{document_id}", methods: map[string]handlerFunc{
			http.MethodPatch: s.handleUpdateDocument, http.MethodPut: s.handleUpdateDocument}, write: true},
		{pattern: "/api/v1/datasets/{dataset_id}/chunks", methods: post(s.handleParse), write: true},
		{pattern: "/api/v1/system/healthz", methods: get(s.handleHealthz), public: true},
		{pattern: "/v1/system/healthz", methods: get(s.handleHealthz), public: true},
		{pattern: "/api/v1/system/ping", methods: get(s.handlePing), public: true},
		{pattern: "/api/v1/system/version", methods: get(s.handleVersion), public: true},
		{pattern: "/_dev/requests", methods: map[string]handlerFunc{
			http.MethodGet: s.handleDevRequests, http.MethodDelete: s.handleDevRequests}, dev: true},
	}
}

// ServeHTTP routes like Quart: an unknown path is a 404 and a wrong method
// a 405-turned-code-100 before any authentication; then the API key is
// checked; every request outside /_dev is logged.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &LoggedRequest{Time: s.now().UTC(), Method: r.Method, Path: r.URL.Path, Traceparent: r.Header.Get("Traceparent")}
	sw := &devlog.StatusWriter{ResponseWriter: w}
	rt := s.serve(sw, r, rec)
	if rt != nil && rt.dev {
		return
	}
	rec.Status = sw.Status()
	s.log.Add(*rec)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) *route {
	rt, params := s.match(r.URL.Path)
	rec.Authorized = (rt != nil && rt.public) || s.authorized(r)
	if rt == nil {
		s.reply(w, rec, http.StatusNotFound, map[string]any{
			"code": codeNotFound, "message": "Not Found: " + r.URL.Path, "data": nil, "error": "Not Found"})
		return nil
	}
	h := rt.handler(r.Method)
	if h == nil {
		if r.Method == http.MethodOptions {
			w.Header().Set("Allow", rt.allow())
			w.WriteHeader(http.StatusOK)
			return rt
		}
		s.reply(w, rec, http.StatusOK, jsonResult(codeException, "<MethodNotAllowed '405: Method Not Allowed'>", nil))
		return rt
	}
	if !rec.Authorized {
		s.reply(w, rec, http.StatusUnauthorized, jsonResult(codeUnauthorized, "<Unauthorized '401: Unauthorized'>", nil))
		return rt
	}
	for k, v := range params {
		r.SetPathValue(k, v)
	}
	switch {
	case rt.public: // health and version read no model: never wait on an ingest
	case rt.write && r.Method != http.MethodGet && r.Method != http.MethodHead:
		s.mu.Lock()
		defer s.mu.Unlock()
	default:
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
	h(w, r, rec)
	return rt
}

// match finds the route whose pattern fits path, with its wildcard values.
func (s *Server) match(path string) (*route, map[string]string) {
	segs := strings.Split(path, "/")
	for i := range s.routes {
		pat := strings.Split(s.routes[i].pattern, "/")
		if len(pat) != len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for j, p := range pat {
			switch {
			case strings.HasPrefix(p, "{"):
				if segs[j] == "" {
					ok = false
				}
				params[strings.Trim(p, "{}")] = segs[j]
			case p != segs[j]:
				ok = false
			}
		}
		if ok {
			return &s.routes[i], params
		}
	}
	return nil, nil
}

// handler returns the handler for method; HEAD is served as GET.
func (rt *route) handler(method string) handlerFunc {
	if h, ok := rt.methods[method]; ok {
		return h
	}
	if method == http.MethodHead {
		return rt.methods[http.MethodGet]
	}
	return nil
}

func (rt *route) allow() string {
	var ms []string
	for m := range rt.methods {
		ms = append(ms, m)
	}
	if _, ok := rt.methods[http.MethodGet]; ok {
		ms = append(ms, http.MethodHead)
	}
	ms = append(ms, http.MethodOptions)
	sort.Strings(ms)
	return strings.Join(ms, ", ")
}

// reply writes a JSON body and records its envelope code for the log.
func (s *Server) reply(w http.ResponseWriter, rec *LoggedRequest, status int, body map[string]any) {
	if code, ok := body["code"].(int); ok {
		rec.Code = code
	}
	writeJSON(w, status, body)
}
