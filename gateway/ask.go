package gateway

import (
	"context"
	"fmt"

	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
)

type askRequest struct{ protocol.AskRequest }

func (r *askRequest) standard() *protocol.Standard { return &r.Standard }
func (r *askRequest) pages() []string              { return nil }
func (r *askRequest) validate() error              { return validateStandard(&r.Standard, true) }

// requireCitations defaults to true (docs/protocol.md, "AnswerResult",
// Citations): every sentence shown carries a citation the model wrote and the
// gate verified. false only lets the gate cite a sentence with the chunk that
// supports it; an answer is never shown uncited either way
// (normalizer.AnswerOptions).
func requireCitations(std *protocol.Standard) bool {
	return std.RequireCitations == nil || *std.RequireCitations
}

// runAsk answers one question: /agent/tools/ask and /answer/ask share it,
// so agents and people get the same AnswerResult from the same engine.
func (g *Gateway) runAsk(ctx context.Context, c *call) (protocol.Result, error) {
	std := c.req.standard()
	return resultOf(g.answer(ctx, c, answerTurn{
		question:         std.Question,
		retrievalQuery:   std.Question,
		requireCitations: requireCitations(std),
	}))
}

type getContextRequest struct{ protocol.GetContextRequest }

func (r *getContextRequest) standard() *protocol.Standard { return &r.Standard }
func (r *getContextRequest) pages() []string              { return nil }

func (r *getContextRequest) validate() error {
	if r.MaxTokens < 0 || r.MaxTokens > protocol.MaxContextTokens {
		return invalid(fmt.Sprintf("maxTokens must be between 1 and %d", protocol.MaxContextTokens))
	}
	if r.MaxTokens == 0 {
		r.MaxTokens = protocol.DefaultContextTokens
	}
	return validateStandard(&r.Standard, true)
}

// runGetContext returns the most relevant in-scope chunks for a task,
// trimmed to the caller's token budget; no generation is involved.
func (g *Gateway) runGetContext(ctx context.Context, c *call) (protocol.Result, error) {
	req := c.req.(*getContextRequest)
	chunks, err := g.retrieve(ctx, c, req.Question, g.cfg.Answer.ContextPageSize)
	if err != nil {
		return nil, err
	}
	pack, dropped := normalizer.ContextPack(req.Question, chunks, c.decision.Scope, req.MaxTokens)
	pack.Audit = c.audit()
	c.rec.Dropped += dropped
	c.rec.Citations = len(pack.Citations)
	c.rec.Result = "answered"
	if len(pack.Items) == 0 {
		c.rec.Result = "no_answer"
	}
	return &pack, nil
}
