// Package devmeili is a development stand-in for Meilisearch: it speaks the
// engine's HTTP contract (routes, error bodies, API keys, tenant tokens,
// filter language) over the sample wiki, so wikigate can run and be tested on
// one machine (docs/backends.md, The development stand-ins). Search is a
// small lexical ranker, not the engine's; /version says so ("-wikigate-dev").
package devmeili

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/wikigate/wikigate/devbackends/devlog"
	"github.com/wikigate/wikigate/samplewiki"
)

// Config configures a Server.
type Config struct {
	// MasterKey is required; the default search key is derived from it.
	MasterKey string
	// Corpus defaults to samplewiki.Load().
	Corpus *samplewiki.Corpus
	// Index is the index uid holding Corpus, default "wiki_pages".
	Index string
	// Empty starts the server with no index at all, as a fresh Meilisearch
	// does, so `wikigate ingest` creates the index, applies its settings
	// and loads every page; Corpus is then not read.
	Empty bool
	// LogSize bounds the request log, default 1000 entries.
	LogSize int
}

// Server is the development Meilisearch; it implements http.Handler.
type Server struct {
	masterKey string
	searchUID string
	searchKey string
	indexes   *indexStore
	// defaultUID is the index holding the corpus at start-up.
	defaultUID string
	tasks      taskLog
	log        *devlog.Ring[LoggedRequest]
	mux        *http.ServeMux
	now        func() time.Time
	bodyLimit  int64
	startedAt  time.Time
}

const (
	// searchKeyUID is the fixed uid of the "Default Search API Key", so its
	// value is stable for a given master key.
	searchKeyUID     = "7b3c6f2e-8a41-4d5e-9c07-2f1a6b9d4e80"
	defaultIndexUID  = "wiki_pages"
	defaultLogSize   = 1000
	defaultBodyLimit = 1 << 20
	devVersion       = "1.50.0-wikigate-dev"
)

var indexUIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,400}$`)

// New builds a Server over the corpus.
func New(cfg Config) (*Server, error) {
	if cfg.MasterKey == "" {
		return nil, errors.New("devmeili: a master key is required")
	}
	uid := cfg.Index
	if uid == "" {
		uid = defaultIndexUID
	}
	if !indexUIDPattern.MatchString(uid) {
		return nil, fmt.Errorf("devmeili: invalid index uid %q", uid)
	}
	logSize := cfg.LogSize
	if logSize <= 0 {
		logSize = defaultLogSize
	}
	now := time.Now().UTC().Truncate(time.Second)
	first, err := startIndex(cfg, uid, now)
	if err != nil {
		return nil, err
	}
	s := &Server{
		masterKey:  cfg.MasterKey,
		searchUID:  searchKeyUID,
		searchKey:  deriveKey(cfg.MasterKey, searchKeyUID),
		indexes:    newIndexStore(first),
		defaultUID: uid,
		log:        devlog.NewRing[LoggedRequest](logSize),
		now:        time.Now,
		bodyLimit:  defaultBodyLimit,
		startedAt:  now,
	}
	s.routes()
	return s, nil
}

// startIndex is the index the server starts with: the corpus (by default
// the sample wiki) under uid, or none when cfg.Empty.
func startIndex(cfg Config, uid string, now time.Time) (*index, error) {
	if cfg.Empty {
		return nil, nil
	}
	corpus := cfg.Corpus
	if corpus == nil {
		var err error
		if corpus, err = samplewiki.Load(); err != nil {
			return nil, fmt.Errorf("devmeili: loading sample wiki: %w", err)
		}
	}
	return newIndex(uid, corpus, now), nil
}

// SearchKey returns the uid and value of the "Default Search API Key": the
// key wikigate uses to search and to sign tenant tokens.
func (s *Server) SearchKey() (uid, key string) { return s.searchUID, s.searchKey }

// Requests returns the request log, oldest first.
func (s *Server) Requests() []LoggedRequest { return s.log.Snapshot() }

func (s *Server) routes() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.handleHealth)
	mux.HandleFunc("GET /version", s.guarded(actionMasterOnly, s.handleVersion))
	mux.HandleFunc("GET /keys", s.guarded(actionMasterOnly, s.handleKeys))
	mux.HandleFunc("GET /indexes/{uid}", s.guarded(actionMasterOnly, s.handleGetIndex))
	mux.HandleFunc("POST /indexes/{uid}/search", s.guarded(actionSearch, s.handleSearchPost))
	mux.HandleFunc("GET /indexes/{uid}/search", s.guarded(actionSearch, s.handleSearchGet))
	mux.HandleFunc("GET /indexes/{uid}/documents", s.guarded(actionMasterOnly, s.handleListDocuments))
	mux.HandleFunc("POST /indexes/{uid}/documents/fetch", s.guarded(actionMasterOnly, s.handleFetchDocuments))
	mux.HandleFunc("GET /indexes/{uid}/documents/{id}", s.guarded(actionMasterOnly, s.handleGetDocument))
	s.writeRoutes(mux)
	mux.HandleFunc("GET /_dev/requests", s.guarded(actionMasterOnly, s.handleDevRequests))
	mux.HandleFunc("DELETE /_dev/requests", s.guarded(actionMasterOnly, s.handleDevClear))
	s.mux = mux
}

// ServeHTTP routes the request and logs it, whatever the outcome.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &LoggedRequest{Time: s.now().UTC(), Method: r.Method, Path: r.URL.Path, Auth: authNone, Traceparent: r.Header.Get("Traceparent")}
	sw := &devlog.StatusWriter{ResponseWriter: w}
	r = withRecord(r, rec)
	if _, pattern := s.mux.Handler(r); pattern == "" {
		s.noRoute(sw, r)
	} else {
		s.mux.ServeHTTP(sw, r)
	}
	rec.Status = sw.Status()
	s.log.Add(*rec)
}

// noRoute answers like the engine's HTTP framework: an empty 404, or an
// empty 405 when the path exists with other methods.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	probe := &headerProbe{header: http.Header{}}
	h, _ := s.mux.Handler(r)
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.WriteHeader(http.StatusNotFound)
}

// headerProbe captures a handler's status and headers and drops its body.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(code int)        { p.status = code }

// guardedHandler serves an authenticated request; a returned error is
// written as the engine's error body.
type guardedHandler func(w http.ResponseWriter, r *http.Request, cred credential) *apiError

func (s *Server) guarded(act action, h guardedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec := recordOf(r)
		uid := r.PathValue("uid")
		rec.Index = uid
		cred, err := s.authenticate(r, act, uid)
		rec.Auth = cred.kind
		if err == nil {
			err = h(w, r, cred)
		}
		if err != nil {
			writeError(w, err)
		}
	}
}

// lookupIndex validates the uid (400) and finds the index (404).
func (s *Server) lookupIndex(uid string) (*index, *apiError) {
	if !indexUIDPattern.MatchString(uid) {
		return nil, errInvalidIndexUID(uid)
	}
	ix, ok := s.indexes.get(uid)
	if !ok {
		return nil, errIndexNotFound(uid)
	}
	return ix, nil
}
