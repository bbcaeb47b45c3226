package gateway

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/wikigate/wikigate/dedupe"
	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
	"github.com/wikigate/wikigate/retrieval"
	"github.com/wikigate/wikigate/telemetry"
)

// Answerer is the RAGFlow client (ragflow.Client).
type Answerer interface {
	Retrieve(ctx context.Context, p ragflow.RetrieveParams) (*ragflow.Retrieval, error)
	Complete(ctx context.Context, msgs []ragflow.Message, stream bool) (*ragflow.Completion, error)
	Health(ctx context.Context) error
}

// AnswerConfig tunes retrieve-then-generate; zero values take the defaults.
type AnswerConfig struct {
	Stream              bool     // ask RAGFlow for SSE (its default) instead of one JSON body
	PageSize            int      // chunks retrieved for an answer; default 8
	ContextPageSize     int      // chunks retrieved for get_context; default 30
	SimilarityThreshold float64  // default: RAGFlow's 0.2
	HighScore           float64  // confidence thresholds; normalizer defaults
	MediumScore         float64  //
	EmptyResponses      []string // extra "nothing found" texts of the deployment
	// SupportThreshold is the support score (0..1) a sentence needs against
	// a chunk it cites to be shown; normalizer.DefaultSupportThreshold.
	SupportThreshold float64
	// MinSupported is the share of an answer (0..1, by characters) that
	// must be supported, or it is a no-answer; normalizer.DefaultMinSupported.
	MinSupported float64
	// Queries is how many retrievals an answer makes (1 to
	// retrieval.MaxQueries; retrieval.Queries); default 1.
	Queries int
	// RerankID and Keyword are RAGFlow's rerank_id and keyword, sent only
	// when set (docs/operators.md, "Retrieval").
	RerankID string
	Keyword  bool
	// MinCoverage is the share of the question (0..1) the cited chunks must
	// cover, or it is a no-answer; normalizer.DefaultMinCoverage.
	MinCoverage float64
}

func applyAnswerDefaults(a *AnswerConfig) {
	if a.PageSize <= 0 {
		a.PageSize = 8
	}
	if a.ContextPageSize <= 0 {
		a.ContextPageSize = 30
	}
}

// answerTurn is one question to answer inside the decided scope.
type answerTurn struct {
	question         string
	retrievalQuery   string            // the question, or a condensed follow-up
	history          []ragflow.Message // prior turns, for generation
	requireCitations bool
}

// answer is retrieve-then-generate (docs/backends.md, "Read side: what the
// gate sends"): retrieval with exactly the decided datasets and paths, the
// response-side scope check, generation from the in-scope chunks only, and
// normalization into an AnswerResult that cites or honestly says there is no
// answer.
func (g *Gateway) answer(ctx context.Context, c *call, t answerTurn) (protocol.AnswerResult, error) {
	eff := c.decision.Scope
	c.report("retrieving")
	chunks, err := g.retrieve(ctx, c, t.retrievalQuery, g.cfg.Answer.PageSize)
	if err != nil {
		return protocol.AnswerResult{}, err
	}
	_, check := telemetry.Stage(ctx, telemetry.StageResponseCheck)
	kept, dropped := normalizer.InScope(chunks, eff)
	telemetry.EndResponseCheck(check, len(kept), dropped)
	c.rec.Dropped += dropped
	c.report(strconv.Itoa(len(kept)) + " chunks in scope")
	opts := normalizer.AnswerOptions{
		RequireCitations: t.requireCitations,
		EmptyResponses:   g.cfg.Answer.EmptyResponses,
		HighScore:        g.cfg.Answer.HighScore,
		MediumScore:      g.cfg.Answer.MediumScore,
		SupportThreshold: g.cfg.Answer.SupportThreshold,
		MinSupported:     g.cfg.Answer.MinSupported,
		NoAnswerKey:      func() string { return dedupe.Key(protocol.EventNoAnswer, t.question, eff, nil) },
		AnswerKey:        answerKey(t.question, eff),
		WriteTools:       g.servedWriteTools(c.decision.WriteTools),
		FeedbackEndpoint: g.feedbackEndpointFor(c.rec.Endpoint),
	}
	text := ""
	if len(kept) > 0 {
		c.report("generating")
		// A streamed call verifies the text as it arrives (c.live); the
		// answer below is built from the whole text either way.
		comp, err := g.complete(ctx, c, ragflow.BuildPrompt(t.question, kept, t.history), c.live.verifier(kept, eff, opts))
		if err != nil {
			return protocol.AnswerResult{}, err
		}
		text = comp.Answer
	}
	_, verify := telemetry.Stage(ctx, telemetry.StageVerify)
	res, stats := normalizer.Answer(text, kept, eff, opts)
	res, stats = normalizer.CheckCoverage(res, stats, t.retrievalQuery, g.cfg.Answer.MinCoverage, kept, eff, opts)
	telemetry.EndVerify(verify, stats.Citations, stats.NoAnswer)
	g.deps.Tracer.SetText(ctx, t.question, text) // only with log_questions
	res.Audit = c.audit()
	c.live.answered(res)
	c.rec.Citations += stats.Citations
	c.rec.Result = "answered"
	if stats.NoAnswer {
		c.rec.Result = "no_answer"
	}
	return res, nil
}

// retrieve asks RAGFlow for chunks of the decided datasets under the decided
// paths. An empty dataset list never reaches RAGFlow (it means "all"). With
// retrieval { queries N } it asks with each of retrieval.Queries at once,
// every one with the same datasets and paths, and merges their chunks; any
// failed retrieval fails the call.
func (g *Gateway) retrieve(ctx context.Context, c *call, query string, pageSize int) ([]ragflow.Chunk, error) {
	ids := make([]string, 0, len(c.decision.Datasets))
	for _, d := range c.decision.Datasets {
		ids = append(ids, d.ID)
	}
	if len(ids) == 0 || len(c.decision.Scope.Paths) == 0 {
		return nil, protocol.NewError(protocol.CodeDatasetNotAllowed, "no dataset is allowed for this scope")
	}
	queries := retrieval.Queries(query, g.cfg.Answer.Queries)
	lists, errs := make([][]ragflow.Chunk, len(queries)), make([]error, len(queries))
	var rec sync.Mutex // the call's audit record, shared by the retrievals
	if len(queries) == 1 {
		lists[0], errs[0] = g.retrieveOne(ctx, c, &rec, ids, queries[0], pageSize)
	} else {
		var wg sync.WaitGroup
		for i, q := range queries {
			wg.Go(func() { lists[i], errs[i] = g.retrieveOne(ctx, c, &rec, ids, q, pageSize) })
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	chunks := retrieval.Merge(lists, pageSize)
	c.rec.UnsafeURLsDropped += normalizer.DropUnsafeChunkURLs(chunks)
	return chunks, nil
}

// retrieveOne is one retrieval of query in the decided datasets and paths;
// rec guards the call's audit record.
func (g *Gateway) retrieveOne(ctx context.Context, c *call, rec *sync.Mutex, ids []string, query string, pageSize int) ([]ragflow.Chunk, error) {
	call := func(ids []string) ([]ragflow.Chunk, error) {
		start := g.now()
		r, err := g.deps.Answers.Retrieve(ctx, ragflow.RetrieveParams{
			Question:            query,
			DatasetIDs:          ids,
			Condition:           ragflow.PathCondition(c.decision.Scope.Paths),
			PageSize:            pageSize,
			SimilarityThreshold: g.cfg.Answer.SimilarityThreshold,
			RerankID:            g.cfg.Answer.RerankID,
			Keyword:             g.cfg.Answer.Keyword,
		})
		rec.Lock()
		defer rec.Unlock()
		if err != nil {
			return nil, &retrievalFailure{raw: err, reply: g.ragflowFailure(c, "ragflow.retrieval", start, err)}
		}
		c.rec.AddBackend("ragflow.retrieval", 200, g.now().Sub(start), nil)
		return r.Chunks, nil
	}
	chunks, err := call(ids)
	if err != nil {
		if chunks, err = g.retrieveSkippingMissing(c, ids, err, call); err != nil {
			return nil, replyOf(err)
		}
	}
	return chunks, nil
}

func (g *Gateway) complete(ctx context.Context, c *call, msgs []ragflow.Message, onText func(string)) (*ragflow.Completion, error) {
	start := g.now()
	comp, err := g.generate(ctx, msgs, onText)
	if err != nil {
		return nil, g.ragflowFailure(c, "ragflow.completion", start, err)
	}
	c.rec.AddBackend("ragflow.completion", 200, g.now().Sub(start), nil)
	g.countTokens(ctx, c, comp.Usage)
	return comp, nil
}

// ragflowFailure records the failed call and maps it to ragflow_unavailable
// (503, or 502 when RAGFlow answered garbage). A failure never becomes an
// answer.
func (g *Gateway) ragflowFailure(c *call, name string, start time.Time, err error) error {
	var re *ragflow.Error
	if !errors.As(err, &re) {
		re = &ragflow.Error{Kind: ragflow.Unreachable, Detail: err.Error()}
	}
	c.rec.AddBackend(name, re.HTTPStatus, g.now().Sub(start), re)
	return re.ProtocolError()
}
