package caddymodule

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/retrieval"
)

// RetrievalConfig is the ragflow block's retrieval { ... } block: what the
// gate asks RAGFlow for a question and when an answer addresses it
// (docs/operators.md, "Retrieval").
type RetrievalConfig struct {
	// Queries is how many retrievals an answer makes, 1 to 3: the question,
	// then its keywords, then its names (retrieval.Queries), merged by
	// chunk. Default 1.
	Queries int `json:"queries,omitempty"`
	// RerankID is a rerank model of the RAGFlow tenant, sent as rerank_id.
	// Default none (RAGFlow's hybrid score).
	RerankID string `json:"rerank_id,omitempty"`
	// Keyword has RAGFlow expand the question with keywords from its chat
	// model (keyword: true). Default off.
	Keyword *bool `json:"keyword,omitempty"`
	// MinCoverage is the share of the question (0..1) the chunks an answer
	// cites must hold, or it is a no-answer. Default 0.4.
	MinCoverage float64 `json:"min_coverage,omitempty"`
}

func (r *RetrievalConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "retrieval", map[string]func() error{
		"queries":      func() error { return intArg(d, &r.Queries, 1, retrieval.MaxQueries) },
		"rerank_id":    func() error { return oneArg(d, &r.RerankID) },
		"keyword":      func() error { return onOff(d, &r.Keyword) },
		"min_coverage": func() error { return fractionArg(d, &r.MinCoverage) },
	})
}

// apply sets the answer's retrieval options; a nil block keeps the
// defaults.
func (r *RetrievalConfig) apply(a *gateway.AnswerConfig) {
	if r == nil {
		return
	}
	a.Queries, a.RerankID, a.MinCoverage = r.Queries, r.RerankID, r.MinCoverage
	a.Keyword = r.Keyword != nil && *r.Keyword
}
