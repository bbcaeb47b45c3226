package ragflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Retrieval defaults and RAGFlow's own page-size ceiling (docs/backends.md,
// RAGFlow traps: page_size > 100 is an error there).
const (
	DefaultPageSize            = 12
	MaxPageSize                = 100
	DefaultSimilarityThreshold = 0.2
)

// metadataFields are the document metadata fields asked for with every
// retrieval (reference_metadata), the citation metadata every document
// carries (docs/backends.md, Write side): with them a citation is built from
// the chunk alone and the response-side scope check can run.
var metadataFields = []string{"path", "url", "title", "project", "version", "status"}

// Condition is one metadata_condition entry.
type Condition struct {
	Name               string `json:"name"`
	ComparisonOperator string `json:"comparison_operator"`
	Value              any    `json:"value"`
}

// MetadataCondition is RAGFlow's metadata_condition (docs/backends.md, Read
// side: what the gate sends).
type MetadataCondition struct {
	Logic      string      `json:"logic"`
	Conditions []Condition `json:"conditions"`
}

// PathCondition narrows retrieval to the effective scope's paths: logic
// "or" over, for each path p, {path "=" p} and {path "start with" p+"/"}, so
// "a/b" reaches "a/b" and "a/b/c" but not "a/bc". The datasets already fix
// project, version and status. RAGFlow may compare case-insensitively, so
// this only narrows; the response-side check (scope.Contains) decides. It
// returns nil for no paths: a scope without paths reaches nothing, and the
// caller should not retrieve at all.
func PathCondition(paths []string) *MetadataCondition {
	if len(paths) == 0 {
		return nil
	}
	mc := &MetadataCondition{Logic: "or", Conditions: make([]Condition, 0, 2*len(paths))}
	for _, p := range paths {
		mc.Conditions = append(mc.Conditions,
			Condition{Name: "path", ComparisonOperator: "=", Value: p},
			Condition{Name: "path", ComparisonOperator: "start with", Value: p + "/"})
	}
	return mc
}

// RetrieveParams is one retrieval. DatasetIDs are the decision's datasets
// and must not be empty.
type RetrieveParams struct {
	Question            string
	DatasetIDs          []string
	Condition           *MetadataCondition
	PageSize            int     // default DefaultPageSize, at most MaxPageSize
	SimilarityThreshold float64 // default DefaultSimilarityThreshold when <= 0
	TopK                int     // sent only when > 0 (RAGFlow's default is 1024)
	// RerankID is a rerank model of the tenant, sent as rerank_id only
	// when set (RAGFlow refuses an unknown one).
	RerankID string
	// Keyword asks RAGFlow to expand the question with its chat model's
	// keywords; sent only when true (RAGFlow's default is false).
	Keyword bool
}

// Retrieval is the chunks of one retrieval page and RAGFlow's total of hits
// above the threshold.
type Retrieval struct {
	Chunks []Chunk
	Total  int
}

// retrievalRequest is the complete allow-list of what Retrieve sends. A
// field that is not here cannot reach RAGFlow: no document_ids (an empty
// list means "no filter" there), kb_ids, doc_ids or knowledge.
type retrievalRequest struct {
	Question            string             `json:"question"`
	DatasetIDs          []string           `json:"dataset_ids"`
	MetadataCondition   *MetadataCondition `json:"metadata_condition,omitempty"`
	Page                int                `json:"page"`
	PageSize            int                `json:"page_size"`
	SimilarityThreshold float64            `json:"similarity_threshold"`
	TopK                int                `json:"top_k,omitempty"`
	Highlight           bool               `json:"highlight"`
	Keyword             bool               `json:"keyword,omitempty"`
	RerankID            string             `json:"rerank_id,omitempty"`
	ReferenceMetadata   referenceMetadata  `json:"reference_metadata"`
}

type referenceMetadata struct {
	Include bool     `json:"include"`
	Fields  []string `json:"fields"`
}

// Retrieve runs POST /api/v1/retrieval. An empty DatasetIDs (or an empty id
// in it) is ErrNoDatasets before any network call; a PageSize over
// MaxPageSize is an error too.
func (c *Client) Retrieve(ctx context.Context, p RetrieveParams) (*Retrieval, error) {
	req, err := retrievalBody(p)
	if err != nil {
		return nil, err
	}
	cl, err := c.send(ctx, http.MethodPost, c.retrievalURL, req, true, c.retrieval)
	if err != nil {
		return nil, err
	}
	defer cl.close()
	r := getWireReader()
	defer putWireReader(r)
	if err := c.readBodyInto(cl, &r.src); err != nil {
		return nil, err
	}
	body := r.src.Bytes() // still the body after reading: the decoder only advances past it
	h, data, decoded, dataBad := r.readRetrieval()
	if err := c.checkEnvelope(cl.resp, body, h, decoded); err != nil {
		return nil, err
	}
	if h.dataKind != '{' || dataBad {
		return nil, badResponse("retrieval data is not {chunks, total}")
	}
	if data.chunks == nil {
		data.chunks = []Chunk{}
	}
	return &Retrieval{Chunks: data.chunks, Total: data.total}, nil
}

func retrievalBody(p RetrieveParams) (*retrievalRequest, error) {
	if len(p.DatasetIDs) == 0 {
		return nil, ErrNoDatasets
	}
	for _, id := range p.DatasetIDs {
		if id == "" {
			return nil, ErrNoDatasets
		}
	}
	if p.PageSize > MaxPageSize {
		return nil, fmt.Errorf("ragflow: page size %d over %d", p.PageSize, MaxPageSize)
	}
	if p.Condition != nil && len(p.Condition.Conditions) == 0 {
		return nil, errors.New("ragflow: metadata condition without conditions")
	}
	req := &retrievalRequest{
		Question:            p.Question,
		DatasetIDs:          append([]string(nil), p.DatasetIDs...),
		MetadataCondition:   p.Condition,
		Page:                1,
		PageSize:            p.PageSize,
		SimilarityThreshold: p.SimilarityThreshold,
		TopK:                max(p.TopK, 0),
		Keyword:             p.Keyword,
		RerankID:            p.RerankID,
		ReferenceMetadata:   referenceMetadata{Include: true, Fields: metadataFields},
	}
	if req.PageSize <= 0 {
		req.PageSize = DefaultPageSize
	}
	if req.SimilarityThreshold <= 0 {
		req.SimilarityThreshold = DefaultSimilarityThreshold
	}
	return req, nil
}

// isJSONObject reports whether raw is a JSON object (not null, false, a
// list...), the shape every success data of these routes has.
func isJSONObject(raw json.RawMessage) bool {
	for _, b := range raw {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
	return false
}
