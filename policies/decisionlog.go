package policies

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"go.uber.org/zap"
)

// Decision log paths, as OPA names a decision's query in its events.
const (
	PathDecision     = "wikigate/decision"
	PathToolDecision = "wikigate/tool_decision"
)

// DefaultDecisionLogBuffer bounds the events waiting to be written.
const DefaultDecisionLogBuffer = 10000

// DefaultDecisionLogMask is erased from every event unless the operator
// sets a mask: the input holds no question today, and if one is ever added
// it stays out of the log by default.
var DefaultDecisionLogMask = []string{"/input/question"}

// DecisionLogOptions turn on OPA-format decision logs: one event per
// decision (decision_id, path, input, result, bundles, timestamp, metrics,
// labels), written off the request path to Logger, uploaded to a
// decision-log service, or both. A full buffer drops events and counts them
// rather than slowing a call.
type DecisionLogOptions struct {
	Logger *zap.Logger       // the Caddy log the events are written to; nil: none
	Upload *UploadOptions    // the decision-log service they are posted to; nil: none
	Buffer int               // default DefaultDecisionLogBuffer
	Mask   []string          // input paths to erase, OPA style ("/input/caller/roles"); nil: the default
	Labels map[string]string // OPA's labels (id, version...)
}

// Event is one decision in the event shape of OPA's decision logs
// (plugins/logs EventV1: the same JSON names for the fields the gate
// fills). OPA's own type is not used because its package brings OPA's
// server and bundle downloader into the binary.
type Event struct {
	DecisionID string                    `json:"decision_id"`
	Path       string                    `json:"path"`
	Input      json.RawMessage           `json:"input,omitempty"`
	Result     json.RawMessage           `json:"result,omitempty"` // what the policy returned, unchanged
	Error      string                    `json:"error,omitempty"`
	Bundles    map[string]BundleRevision `json:"bundles"`
	Timestamp  time.Time                 `json:"timestamp"`
	Metrics    map[string]any            `json:"metrics,omitempty"`
	Labels     map[string]string         `json:"labels,omitempty"`
	Erased     []string                  `json:"erased,omitempty"`
	// Rules name the rules that decided a denial (file:line name), beside
	// OPA's fields: the audit record names the same.
	Rules []string `json:"wikigate_rules,omitempty"`
}

// BundleRevision is an event's bundles entry.
type BundleRevision struct {
	Revision string `json:"revision"`
}

type pending struct {
	id, path string
	in       Input
	d        Decision
	err      error
	at       time.Time
	metrics  map[string]any
}

type decisionLog struct {
	ch       chan pending
	dropped  atomic.Uint64 // since the last event written to the console
	observer DecisionObserver
	console  *zap.Logger // nil: no Caddy log
	upload   *uploader   // nil: no service
	mask     []string
	labels   map[string]string
	done     chan struct{} // closed once the writer has stopped and flushed
}

type decisionIDKey struct{}

// WithDecisionID names the decisions made under ctx (the gate's request
// id), so an event can be found again by `policy explain --request-id`.
func WithDecisionID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, decisionIDKey{}, id)
}

func decisionID(ctx context.Context) string {
	id, _ := ctx.Value(decisionIDKey{}).(string)
	return id
}

// startDecisionLog runs the writer until ctx is done (the configuration
// that owns the engine is unloaded); it then writes what is queued and
// flushes the upload.
func startDecisionLog(ctx context.Context, o *DecisionLogOptions, obs DecisionObserver, z *zap.Logger) *decisionLog {
	if o == nil || (o.Logger == nil && o.Upload == nil) {
		return nil
	}
	size := o.Buffer
	if size <= 0 {
		size = DefaultDecisionLogBuffer
	}
	mask := o.Mask
	if mask == nil {
		mask = DefaultDecisionLogMask
	}
	l := &decisionLog{ch: make(chan pending, size), observer: obs, console: o.Logger, mask: mask,
		labels: o.Labels, done: make(chan struct{})}
	if o.Upload != nil {
		failed := func(err error) {
			z.Warn("decision log upload failed; events stay queued", zap.String("url", o.Upload.URL), zap.Error(err))
		}
		l.upload = newUploader(*o.Upload, obs.DecisionLogDropped, failed)
	}
	go l.run(ctx)
	return l
}

// record queues one decision; it never blocks the call.
func (l *decisionLog) record(ctx context.Context, path string, in *Input, d Decision, err error, m map[string]any) {
	if l == nil {
		return
	}
	select {
	case l.ch <- pending{id: decisionID(ctx), path: path, in: *in, d: d, err: err, at: time.Now(), metrics: m}:
	default:
		l.dropped.Add(1)
		l.observer.DecisionLogDropped(1)
	}
}

func (l *decisionLog) run(ctx context.Context) {
	defer close(l.done)
	for {
		select {
		case p := <-l.ch:
			l.write(p)
		case <-ctx.Done():
			l.drain()
			return
		}
	}
}

// drain writes what is still queued and flushes the upload.
func (l *decisionLog) drain() {
	for {
		select {
		case p := <-l.ch:
			l.write(p)
		default:
			if l.upload != nil {
				l.upload.close()
			}
			return
		}
	}
}

// wait blocks until the writer has stopped and flushed, at most
// flushTimeout and a second.
func (l *decisionLog) wait() {
	if l == nil {
		return
	}
	select {
	case <-l.done:
	case <-time.After(flushTimeout + time.Second):
	}
}

func (l *decisionLog) write(p pending) {
	ev := Event{DecisionID: p.id, Path: p.path, Bundles: map[string]BundleRevision{"wikigate": {p.d.Revision}},
		Timestamp: p.at.UTC(), Metrics: p.metrics, Labels: l.labels}
	ev.Input, ev.Erased = maskedInput(&p.in, l.mask)
	ev.Rules = RuleNames(p.d.Rules)
	if p.err != nil {
		ev.Error = p.err.Error()
	} else {
		ev.Result = resultJSON(p.d)
	}
	if l.console != nil {
		l.writeConsole(&ev)
	}
	if l.upload != nil {
		l.upload.add(ev)
	}
}

// writeConsole writes ev as one Caddy log line whose fields are the event's.
func (l *decisionLog) writeConsole(ev *Event) {
	fields := []zap.Field{zap.String("type", "openpolicyagent.org/decision_logs"),
		zap.String("decision_id", ev.DecisionID), zap.String("path", ev.Path),
		zap.Any("input", ev.Input), zap.Any("bundles", ev.Bundles), zap.String("timestamp", ev.Timestamp.Format(time.RFC3339Nano))}
	if ev.Result != nil {
		fields = append(fields, zap.Any("result", ev.Result))
	}
	if len(ev.Rules) > 0 {
		fields = append(fields, zap.Strings("wikigate_rules", ev.Rules))
	}
	if ev.Error != "" {
		fields = append(fields, zap.String("error", ev.Error))
	}
	if len(ev.Metrics) > 0 {
		fields = append(fields, zap.Any("metrics", ev.Metrics))
	}
	if len(ev.Labels) > 0 {
		fields = append(fields, zap.Any("labels", ev.Labels))
	}
	if len(ev.Erased) > 0 {
		fields = append(fields, zap.Strings("erased", ev.Erased))
	}
	if n := l.dropped.Swap(0); n > 0 {
		fields = append(fields, zap.Uint64("dropped_before", n))
	}
	l.console.Info("Decision Log", fields...)
}

// maskedInput is in's JSON with the mask's paths removed; it returns the
// paths it erased.
func maskedInput(in *Input, mask []string) (json.RawMessage, []string) {
	raw, err := json.Marshal(in)
	if err != nil || len(mask) == 0 {
		return raw, nil
	}
	var doc map[string]any
	if json.Unmarshal(raw, &doc) != nil {
		return raw, nil
	}
	var erased []string
	for _, m := range mask {
		if eraseInputPath(doc, m) {
			erased = append(erased, m)
		}
	}
	if len(erased) == 0 {
		return raw, nil
	}
	out, _ := json.Marshal(doc)
	return out, erased
}

// eraseInputPath removes an OPA mask path ("/input/a/b") from doc. A null
// is left as it is and not reported: it hides nothing, and an event that
// names no erased path can be replayed (an agent's roles are null, so
// `mask /input/caller/roles` leaves every agent's decisions replayable).
func eraseInputPath(doc map[string]any, path string) bool {
	parts := strings.Split(strings.TrimPrefix(path, "/input/"), "/")
	for i, p := range parts {
		if i == len(parts)-1 {
			v, ok := doc[p]
			if !ok || v == nil {
				return false
			}
			delete(doc, p)
			return true
		}
		next, ok := doc[p].(map[string]any)
		if !ok {
			return false
		}
		doc = next
	}
	return false
}

// DecisionLogDropped counts events dropped because the buffer was full
// since the last event written to the Caddy log.
func (e *Engine) DecisionLogDropped() uint64 {
	if e.dlog == nil {
		return 0
	}
	return e.dlog.dropped.Load()
}

// WaitDecisionLog blocks, after New's ctx is done, until the decision log
// has written what was queued and flushed its upload (bounded: a dead log
// service cannot hold a shutdown); at once when decision logs are off.
func (e *Engine) WaitDecisionLog() {
	e.dlog.wait()
}

// resultJSON is what the policy returned for d, as JSON: the decision log's
// result is the policy's value, not the gate's reading of it (a tool gate
// event carries no scope the policy did not write, a deny keeps what the
// policy put beside its code). A decision without it (made before it was
// kept) falls back to the gate's reading.
func resultJSON(d Decision) json.RawMessage {
	switch r := d.result.(type) {
	case json.RawMessage:
		return r
	case *ast.Term:
		if v, err := ast.JSON(r.Value); err == nil {
			if raw, err := json.Marshal(v); err == nil {
				return raw
			}
		}
	}
	raw, _ := json.Marshal(WireOf(d))
	return raw
}

// RuleNames writes rules as the audit record and the decision log name
// them: file:line name.
func RuleNames(rules []Rule) []string {
	if len(rules) == 0 {
		return nil
	}
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.String()
	}
	return out
}
