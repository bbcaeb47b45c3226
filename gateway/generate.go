package gateway

import (
	"context"

	"github.com/wikigate/wikigate/ragflow"
)

// textStreamer is a RAGFlow client that hands out the answer while it is
// generated (ragflow.Client.CompleteFunc).
type textStreamer interface {
	CompleteFunc(ctx context.Context, msgs []ragflow.Message, stream bool, onText func(string)) (*ragflow.Completion, error)
}

// generate asks for a completion; onText, when set and the client can,
// hears the answer as it grows.
func (g *Gateway) generate(ctx context.Context, msgs []ragflow.Message, onText func(string)) (*ragflow.Completion, error) {
	if ts, ok := g.deps.Answers.(textStreamer); ok && onText != nil {
		return ts.CompleteFunc(ctx, msgs, g.cfg.Answer.Stream, onText)
	}
	return g.deps.Answers.Complete(ctx, msgs, g.cfg.Answer.Stream)
}
