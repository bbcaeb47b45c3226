package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/quota"
	"github.com/wikigate/wikigate/ragflow"
	"github.com/wikigate/wikigate/stream"
)

// StreamConfig tunes streamed answers (docs/docs-sites.md "Streaming");
// zero values take the defaults.
type StreamConfig struct {
	// KeepAlive is the longest silence before a keep-alive comment;
	// default stream.DefaultKeepAlive.
	KeepAlive time.Duration
	// MaxPerCaller caps the streams one caller holds open; past it a new
	// one is 429 rate_limited. Default stream.DefaultMaxPerCaller.
	MaxPerCaller int
	// MaxOpen caps the streams this gate process holds open, every caller
	// together; past it a new one is 429 rate_limited. Default
	// stream.DefaultMaxOpen.
	MaxOpen int
	// RetryAfter is the wait that 429 names; default 5s (a stream ends
	// within an answer's time).
	RetryAfter time.Duration
	// ResumeWindow is how long a stream's events stay readable after it
	// ended, for GET /answer/streams/{id} with Last-Event-ID; default
	// stream.DefaultResumeWindow.
	ResumeWindow time.Duration
	// ResumeMaxBytes bounds the events this gate keeps for resumption,
	// every stream together; default stream.DefaultMaxReplayBytes.
	ResumeMaxBytes int
	// ClientIP names an anonymous caller's address (Caddy's client IP,
	// trusted proxies applied); default the connection's remote address.
	ClientIP func(r *http.Request) string
}

// defaultStreamRetryAfter: one answer's time, after which a slot is free.
const defaultStreamRetryAfter = 5 * time.Second

// streamRoutes are the routes that answer with an event stream when asked.
var streamRoutes = map[string]bool{"/answer/ask": true, "/agent/tools/ask": true, sessionTurnsPattern: true}

// wantsStream: a streamable route, asked for text/event-stream.
func wantsStream(rt route, r *http.Request) bool {
	return streamRoutes[rt.endpoint] && stream.Wants(r)
}

// serveStream is serveCall for a caller that asked for an event stream.
// The pipeline is the same; the stream starts with the first status event,
// which the tool sends once every check passed, so every refusal before it
// is a plain JSON error with its status. After it, a failure is an error
// event, and done always ends the stream.
func (g *Gateway) serveStream(w http.ResponseWriter, r *http.Request, reqID, pathID string, rt route) {
	rec := g.newRecord(r, reqID, pathID, rt)
	r, span := g.traceCall(r, rec, rt)
	defer g.finishTraced(r.Context(), span, rec)
	live := &liveAnswer{sw: stream.NewWriter(w, g.cfg.Stream.KeepAlive), release: func() {}, header: w.Header()}
	defer live.close()

	out, err := g.httpCall(r, reqID, pathID, g.liveRoute(r, rt, live), rec)
	pe, closed := g.settle(r.Context(), rec, err)
	switch {
	case closed:
		if live.sw.Started() {
			// Only a resuming reader reads this (docs/docs-sites.md "Resuming a stream"):
			// the generation was cancelled with the connection.
			live.fail(reqID, protocol.NewError(protocol.CodeNotFound, "this answer was cancelled when its reader left; ask again"))
		}
		return
	case !live.sw.Started():
		writeOutcome(w, r, reqID, out, err, pe)
		return
	case pe != nil:
		live.fail(reqID, pe)
	default:
		live.finish(out)
	}
	if werr := live.sw.Err(); werr != nil {
		g.clientClosed(rec, werr) // gone before the end of the stream
	}
}

// liveRoute wraps the route's tool: once admitted (decided and guarded),
// the call takes an open-stream slot of its caller, then reports its
// stages and its verified text to the stream.
func (g *Gateway) liveRoute(r *http.Request, rt route, live *liveAnswer) route {
	run := rt.run
	rt.run = func(ctx context.Context, c *call) (protocol.Result, error) {
		release, err := g.streams.Acquire(g.callerKey(r, c))
		if err != nil {
			return nil, g.streamRefused(err)
		}
		live.release = release
		g.recordStream(live, g.callerKey(r, c))
		c.live, c.progress = live, live.status
		return run(ctx, c)
	}
	return rt
}

// Budget names of the open-stream limits' 429s.
const (
	streamsPerCallerPolicy = "streams-per-caller"
	streamsPerGatePolicy   = "streams-per-gate"
)

// streamRefused is the 429 for a stream over the caller's limit or the
// gate's: a budget of streams held open at once, so it names no window,
// and a slot is back within RetryAfter (one answer's time).
func (g *Gateway) streamRefused(err error) error {
	msg := "too many open answer streams for this caller; wait for one to end"
	p := quota.Policy{Name: streamsPerCallerPolicy, Quota: g.cfg.Stream.MaxPerCaller, Concurrent: true}
	if errors.Is(err, stream.ErrGateFull) {
		msg = "this gate holds its maximum of open answer streams; retry shortly"
		p = quota.Policy{Name: streamsPerGatePolicy, Quota: g.cfg.Stream.MaxOpen, Concurrent: true}
	}
	wait := g.cfg.Stream.RetryAfter.Round(time.Second)
	return rateLimited(msg, p, 0, wait, wait)
}

// liveAnswer is one streamed answer: its writer, and the verifier that
// decides which generated text may be shown before the result.
type liveAnswer struct {
	sw      *stream.Writer
	prog    *normalizer.Progressive
	release func()
	header  http.Header           // the response's, to name the resume URL
	final   protocol.AnswerResult // the verified answer, once answer built it
}

// answered keeps the answer the stream's last citations and delta come
// from (finish), typed where the route's result is any protocol.Result. A
// call that is not streamed (l is nil) keeps nothing.
func (l *liveAnswer) answered(res protocol.AnswerResult) {
	if l != nil {
		l.final = res
	}
}

func (l *liveAnswer) close() {
	l.sw.Close()
	l.release()
}

func (l *liveAnswer) status(stage string) { _ = l.sw.Send(stream.EventStatus, stream.StatusOf(stage)) }

// verifier returns what hears the generation, or nil when the call is not
// streamed (l is nil). The verifier checks the text against the same
// chunks, scope and options the final Answer uses.
func (l *liveAnswer) verifier(kept []ragflow.Chunk, eff protocol.Scope, o normalizer.AnswerOptions) func(string) {
	if l == nil {
		return nil
	}
	l.prog = normalizer.NewProgressive(kept, eff, o)
	return l.text
}

// text shows what became verified: the citations first, so a reader can
// resolve the [n] of the delta that follows.
func (l *liveAnswer) text(answer string) {
	delta, cites := l.prog.Advance(answer)
	if cites != nil {
		_ = l.sw.Send(stream.EventCitations, stream.Citations{Citations: cites})
	}
	if delta != "" {
		_ = l.sw.Send(stream.EventDelta, stream.Delta{Text: delta})
	}
}

// finish sends the final citations, the rest of the verified answer (its
// references resolve against them), the result exactly as the JSON route
// returns it, and done.
func (l *liveAnswer) finish(out protocol.Result) {
	res := l.final
	cites := res.Citations
	if cites == nil {
		cites = []protocol.Citation{}
	}
	_ = l.sw.Send(stream.EventCitations, stream.Citations{Citations: cites, Final: true})
	if l.prog != nil {
		if rest := l.prog.Finish(res); rest != "" {
			_ = l.sw.Send(stream.EventDelta, stream.Delta{Text: rest})
		}
	}
	_ = l.sw.Send(stream.EventResult, out)
	_ = l.sw.Send(stream.EventDone, stream.Done{})
}

// fail ends a started stream with the protocol's error envelope.
func (l *liveAnswer) fail(reqID string, pe *protocol.Error) {
	_ = l.sw.Send(stream.EventError, protocol.ErrorBody{Error: protocol.ErrorDetail{Code: pe.Code, Message: pe.Message, RequestID: reqID}})
	_ = l.sw.Send(stream.EventDone, stream.Done{})
}

func applyStreamDefaults(s *StreamConfig) {
	if s.KeepAlive <= 0 {
		s.KeepAlive = stream.DefaultKeepAlive
	}
	if s.MaxPerCaller <= 0 {
		s.MaxPerCaller = stream.DefaultMaxPerCaller
	}
	if s.MaxOpen <= 0 {
		s.MaxOpen = stream.DefaultMaxOpen
	}
	if s.RetryAfter < time.Second {
		s.RetryAfter = defaultStreamRetryAfter
	}
}
