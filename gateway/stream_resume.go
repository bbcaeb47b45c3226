package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/stream"
)

// Resuming a stream (docs/docs-sites.md "Resuming a stream"): every streamed answer
// names, in StreamURLHeader, where its events can be read again. A reader
// that lost the connection sends GET there with Last-Event-ID and the same
// credential, and gets the events after that id, then the rest as they
// come, from what this gate kept: no new generation. The events are kept in
// this gate's memory (stream.Replay), so a resume must reach the gate that
// ran the stream.
const (
	streamResumePattern = "/answer/streams/{streamId}"
	streamResumePrefix  = "/answer/streams/"
	// StreamURLHeader names the resume URL of a streamed answer.
	StreamURLHeader = "Wikigate-Stream-Url"
)

// newReplay is the gate's store of recent streams' events.
func newReplay(cfg StreamConfig, log *zap.Logger) *stream.Replay {
	return stream.NewReplay(stream.ReplayConfig{
		Window: cfg.ResumeWindow, MaxBytes: cfg.ResumeMaxBytes,
		OnEvict: func(n int64) {
			log.Info("a stream's kept events were evicted for room before its resume window ended", zap.Int64("evictions", n))
		},
	})
}

// recordStream keeps the stream's events for its caller and names the
// resume URL in the response's headers (they go out with the first event).
func (g *Gateway) recordStream(live *liveAnswer, owner string) {
	rec, err := g.replay.Start(owner)
	if err != nil {
		return // no randomness: the stream still runs, it is only not resumable
	}
	live.sw.Record(rec)
	live.header.Set(StreamURLHeader, streamResumePrefix+rec.ID)
}

// serveResume answers GET /answer/streams/{id}: the credential and the tool
// gate (ask) as for the stream itself, then the events after Last-Event-ID
// of the caller's own stream. Another caller's stream, an unknown one, or
// one past its window is 404 not_found; a Last-Event-ID that is not an
// event of the stream is 400 invalid_request.
func (g *Gateway) serveResume(w http.ResponseWriter, r *http.Request, reqID, pathID string, rt route) {
	rec := g.newRecord(r, reqID, pathID, rt)
	r, span := g.traceCall(r, rec, rt) // gateway/trace.go
	defer g.finishTraced(r.Context(), span, rec)
	sw := stream.NewWriter(w, g.cfg.Stream.KeepAlive)
	defer sw.Close()
	err := g.resume(r, reqID, pathID, rt, rec, sw)
	pe, closed := g.settle(r.Context(), rec, err)
	switch {
	case closed:
	case pe != nil && !sw.Started():
		writeOutcome(w, r, reqID, nil, err, pe)
	case sw.Err() != nil:
		g.clientClosed(rec, sw.Err())
	}
}

func (g *Gateway) resume(r *http.Request, reqID, pathID string, rt route, rec *audit.Record, sw *stream.Writer) error {
	if r.Method != http.MethodGet {
		return refusedBeforeBody{getOnly(rt)}
	}
	p, err := g.authenticate(r, rt)
	if err != nil {
		noteRefusedKey(rec, err)
		return refusedBeforeBody{err}
	}
	rec.CallerType, rec.CallerID, rec.Credential, rec.KeyID = p.Type, p.ID, p.Credential, p.KeyID
	if err := g.gateTool(r.Context(), rt, p, rec); err != nil {
		return refusedBeforeBody{err}
	}
	last, err := lastEventID(r)
	if err != nil {
		return err
	}
	owner := g.callerKey(r, &call{principal: p})
	err = g.replay.Follow(r.Context(), pathID, owner, last, sw.WriteFrame)
	switch {
	case errors.Is(err, stream.ErrUnknownStream):
		return protocol.NewError(protocol.CodeNotFound, fmt.Sprintf("no such stream for this caller: unknown, another caller's, kept by another gate, or past its resume window (%s after its end); ask again", g.replay.Window()))
	case errors.Is(err, stream.ErrStreamTooLong):
		return protocol.NewError(protocol.CodeNotFound, "this stream was too long to be kept for resuming; ask again")
	case errors.Is(err, stream.ErrBadEventID):
		return invalid("Last-Event-ID names no event of this stream")
	}
	return err
}

// lastEventID is the Last-Event-ID header: 0 (from the first event) when
// absent.
func lastEventID(r *http.Request) (int, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, invalid("Last-Event-ID must be an event id of the stream (a non-negative integer)")
	}
	return n, nil
}
