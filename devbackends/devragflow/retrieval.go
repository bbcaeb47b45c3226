package devragflow

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
)

// retrievalQuery is a validated POST /api/v1/retrieval body.
type retrievalQuery struct {
	datasets     []*dataset
	question     string
	docFilter    map[string]bool // nil: no filter; empty: match nothing
	page, size   int
	threshold    float64
	vectorWeight float64
	topK         int
	highlight    bool
	metadata     metadataRequest
}

// earlyEmpty is the body G2 returns on its early-exit paths (note doc_aggs
// is a dict there).
func earlyEmpty() map[string]any {
	return result(map[string]any{"total": 0, "chunks": []any{}, "doc_aggs": map[string]any{}})
}

// handleRetrieval is retrieval_test in RA/chunk_api.py (docs/backends.md,
// RAGFlow read side).
func (s *Server) handleRetrieval(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	req, fail := readJSONObject(w, r)
	if fail != nil {
		s.reply(w, rec, http.StatusOK, fail)
		return
	}
	q, body := s.parseRetrieval(req, rec)
	if body == nil {
		body = result(s.retrieve(q))
	}
	s.reply(w, rec, http.StatusOK, body)
}

// parseRetrieval runs the handler's checks in RAGFlow's order. It returns
// either a query or the body to answer with (an error or an early exit).
func (s *Server) parseRetrieval(req map[string]any, rec *LoggedRequest) (*retrievalQuery, map[string]any) {
	q := &retrievalQuery{}
	datasets, body := s.checkDatasets(req, rec)
	if body != nil {
		return nil, body
	}
	q.datasets = datasets
	if _, has := req["question"]; !has {
		return nil, errorResult(codeData, "`question` is required.")
	}
	pageSizeRaw, hasPageSize := req["page_size"]
	pageRaw, hasPage := req["page"]
	q.page = restPage(pageRaw, hasPage)
	size, failed := restPageSize(pageSizeRaw, hasPageSize)
	if failed != "" {
		return nil, exceptionResult(failed)
	}
	q.size = size
	question, body := questionText(req["question"])
	if body != nil {
		return nil, body
	}
	q.question = question
	if body := s.checkDocuments(req, q); body != nil {
		return nil, body
	}
	if body := parseTuning(req, q); body != nil {
		return nil, body
	}
	q.metadata = resolveReferenceMetadata(req)
	if rerank, _ := req["rerank_id"].(string); rerank != "" {
		// The real server fails inside its try block when the rerank model
		// is unknown; this stand-in has no rerank models at all.
		return nil, exceptionResult(fmt.Sprintf("LookupError(%s)", pyStringRepr("Model("+rerank+") not found")))
	}
	return q, nil
}

// checkDatasets covers the first three errors RAGFlow's retrieval checks:
// dataset_ids missing, not a list, or a dataset the key does not own
// (docs/backends.md, RAGFlow read side).
func (s *Server) checkDatasets(req map[string]any, rec *LoggedRequest) ([]*dataset, map[string]any) {
	raw := req["dataset_ids"]
	if !truthy(raw) {
		return nil, errorResult(codeData, "`dataset_ids` is required.")
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, errorResult(codeData, "`dataset_ids` should be a list")
	}
	rec.DatasetIDs = stringList(list)
	var out []*dataset
	for _, e := range list {
		id, _ := e.(string)
		ds, ok := s.model.byDataset[id]
		if !ok {
			return nil, errorResult(codeData, fmt.Sprintf("You don't own the dataset %s.", pyStr(e)))
		}
		if !containsDataset(out, ds) { // a repeated id widens nothing
			out = append(out, ds)
		}
	}
	return out, nil
}

// questionText strips a string question; an empty one ends the request
// with an empty result. Other truthy types cannot be tokenised by RAGFlow
// either and surface as an exception (message approximated).
func questionText(v any) (string, map[string]any) {
	if s, ok := v.(string); ok {
		if s = strings.TrimSpace(s); s == "" {
			return "", earlyEmpty()
		}
		return s, nil
	}
	if !truthy(v) {
		return "", earlyEmpty()
	}
	return "", exceptionResult(fmt.Sprintf(`AttributeError("'%s' object has no attribute 'strip'")`, pyTypeName(v)))
}

// checkDocuments covers document_ids (errors 6–7) and, when no documents
// are named, metadata_condition.
func (s *Server) checkDocuments(req map[string]any, q *retrievalQuery) map[string]any {
	raw, has := req["document_ids"]
	list, ok := raw.([]any)
	if has && !ok {
		return errorResult(codeData, "`documents` should be a list")
	}
	if len(list) > 0 {
		q.docFilter = map[string]bool{}
		for _, e := range list {
			id, _ := e.(string)
			doc, ok := s.model.byDoc[id]
			if !ok || !q.ownsDataset(doc.dataset) {
				return errorResult(codeData, fmt.Sprintf("The datasets don't own the document %s", pyStr(e)))
			}
			q.docFilter[id] = true
		}
		return nil
	}
	mc := req["metadata_condition"]
	if !truthy(mc) {
		return nil
	}
	conds, logicAnd, body := parseMetadataCondition(mc)
	if body != nil {
		return body
	}
	q.docFilter = filterDocuments(q.documents(), conds, logicAnd)
	if len(q.docFilter) == 0 && len(conds) > 0 {
		return earlyEmpty()
	}
	return nil // an empty condition list leaves the "-999" sentinel: nothing matches
}

// parseTuning reads the scoring knobs with Python's float()/int() semantics.
func parseTuning(req map[string]any, q *retrievalQuery) map[string]any {
	var failed string
	q.threshold, q.vectorWeight, q.topK = 0.2, 0.3, 1024
	if v, has := req["similarity_threshold"]; has {
		if q.threshold, failed = pyFloatArg(v); failed != "" {
			return exceptionResult(failed)
		}
	}
	if v, has := req["vector_similarity_weight"]; has {
		if q.vectorWeight, failed = pyFloatArg(v); failed != "" {
			return exceptionResult(failed)
		}
	}
	if v, has := req["top_k"]; has {
		if q.topK, failed = pyIntArg(v); failed != "" {
			return exceptionResult(failed)
		}
	}
	if q.topK <= 0 {
		return errorResult(codeData, "`top_k` must be greater than 0")
	}
	switch h := req["highlight"].(type) {
	case nil:
	case bool:
		q.highlight = h
	case string:
		if l := strings.ToLower(h); l == "true" || l == "false" {
			q.highlight = l == "true"
			break
		}
		return errorResult(codeData, "`highlight` should be a boolean")
	default:
		return errorResult(codeData, "`highlight` should be a boolean")
	}
	return nil
}

func (q *retrievalQuery) ownsDataset(ds *dataset) bool { return containsDataset(q.datasets, ds) }

func containsDataset(list []*dataset, ds *dataset) bool {
	for _, d := range list {
		if d == ds {
			return true
		}
	}
	return false
}

func (q *retrievalQuery) documents() []*document {
	var docs []*document
	for _, ds := range q.datasets {
		docs = append(docs, ds.docs...)
	}
	return docs
}

// hit is one scored chunk.
type hit struct {
	chunk *chunk
	scores
}

// retrieve scores the candidate chunks and builds {chunks, doc_aggs, total}
// as Dealer.retrieval does: sorted by similarity, total counts every hit
// above the threshold, doc_aggs groups those hits by document name.
func (s *Server) retrieve(q *retrievalQuery) map[string]any {
	hits := s.rank(q)
	start := min((q.page-1)*q.size, len(hits))
	end := min(start+q.size, len(hits))
	terms := queryTerms(q.question)
	chunks := make([]any, 0, end-start)
	for _, h := range hits[start:end] {
		chunks = append(chunks, s.chunkJSON(h, q, terms))
	}
	return map[string]any{"chunks": chunks, "doc_aggs": docAggs(hits), "total": len(hits)}
}

func (s *Server) rank(q *retrievalQuery) []hit {
	terms := queryTerms(q.question)
	weight := math.Max(0, math.Min(1, q.vectorWeight))
	var hits []hit
	for _, ds := range q.datasets {
		for _, doc := range ds.docs {
			if q.docFilter != nil && !q.docFilter[doc.id] {
				continue
			}
			for _, c := range doc.chunks {
				if sc, ok := s.model.score(terms, c, weight); ok {
					hits = append(hits, hit{chunk: c, scores: sc})
				}
			}
		}
	}
	engageTopK(hits, q.topK, weight)
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].similarity > hits[j].similarity })
	if q.vectorWeight <= 0 {
		return hits // RAGFlow ignores the threshold without a vector weight
	}
	kept := hits[:0]
	for _, h := range hits {
		if h.similarity >= q.threshold {
			kept = append(kept, h)
		}
	}
	return kept
}

// engageTopK applies top_k as RAGFlow documents it: "the number of chunks
// engaged in vector cosine computation". Only the top_k chunks nearest the
// question by vector keep their vector similarity; the others are still
// recalled by full text, with a vector similarity of 0, so their
// similarity is the term part alone.
func engageTopK(hits []hit, topK int, weight float64) {
	if topK >= len(hits) {
		return
	}
	byVector := make([]int, len(hits))
	for i := range byVector {
		byVector[i] = i
	}
	sort.SliceStable(byVector, func(a, b int) bool { return hits[byVector[a]].vector > hits[byVector[b]].vector })
	for _, i := range byVector[topK:] {
		hits[i].vector = 0
		hits[i].similarity = (1 - weight) * hits[i].term
	}
}

// chunkJSON is one retrieval chunk with the key names of RAGFlow's retrieval
// response (docs/backends.md, RAGFlow wire details: Retrieval response).
func (s *Server) chunkJSON(h hit, q *retrievalQuery, terms []string) map[string]any {
	c := h.chunk
	out := map[string]any{
		"id":                 c.id,
		"content":            c.content,
		"content_ltks":       strings.Join(tokenize(c.content), " "),
		"document_id":        c.doc.id,
		"document_keyword":   c.doc.name,
		"dataset_id":         c.doc.dataset.ID,
		"important_keywords": []any{},
		"tag_kwd":            []any{},
		"image_id":           "",
		"positions":          []any{},
		"similarity":         pyFloat(h.similarity),
		"vector_similarity":  pyFloat(h.vector),
		"term_similarity":    pyFloat(h.term),
		"doc_type_kwd":       "",
		"mom_id":             "",
		"row_id":             nil,
	}
	if q.highlight {
		out["highlight"] = highlight(c.content, terms)
	}
	if meta := q.metadata.documentMetadata(c.doc); meta != nil {
		out["document_metadata"] = meta
	}
	return out
}

// docAggs groups hits by document name (RAGFlow keys them by docnm_kwd, so
// two documents with the same file name share one entry), most hits first.
func docAggs(hits []hit) []any {
	type agg struct {
		name, id string
		count    int
	}
	var order []*agg
	byName := map[string]*agg{}
	for _, h := range hits {
		name := h.chunk.doc.name
		a, ok := byName[name]
		if !ok {
			a = &agg{name: name, id: h.chunk.doc.id}
			byName[name] = a
			order = append(order, a)
		}
		a.count++
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].count > order[j].count })
	out := make([]any, len(order))
	for i, a := range order {
		out[i] = map[string]any{"doc_name": a.name, "doc_id": a.id, "count": a.count}
	}
	return out
}
