package gateway

import (
	"net/http"
	"sync"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/protocol"
)

// openAPIPath serves the OpenAPI document of this gate's routes (docs/openapi.json
// is the same document for a gate serving every route).
const openAPIPath = "/openapi.json"

// openAPIDoc is the document, built once from the route table on first
// request: the routes do not change while the gate runs.
type openAPIDoc struct {
	once sync.Once
	doc  []byte
	err  error
}

// serveOpenAPI answers GET (and HEAD) /openapi.json with the document; no
// credential, as for /healthz: it describes the routes, not the wiki.
func (g *Gateway) serveOpenAPI(w http.ResponseWriter, r *http.Request, reqID string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		pe := protocol.NewError(protocol.CodeMethodNotAllowed, openAPIPath+" accepts GET only")
		writeJSON(w, pe.Status, protocol.ErrorBody{Error: protocol.ErrorDetail{Code: pe.Code, Message: pe.Message, RequestID: reqID}})
		return
	}
	g.openAPI.once.Do(func() { g.openAPI.doc, g.openAPI.err = g.deps.OpenAPI(g.RouteDocs()) })
	if g.openAPI.err != nil {
		g.deps.Logger.Error("building the OpenAPI document failed", zapRequestID(reqID), zap.Error(g.openAPI.err))
		writeError(w, reqID, protocol.NewError(protocol.CodeInternal, "the OpenAPI document could not be built"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(g.openAPI.doc)
	}
}
