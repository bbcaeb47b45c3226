package policies

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"time"

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
// decision (decision_id, path, input, result, bundles, timestamp, labels),
// written by Logger off the request path. A full buffer drops events and
// counts them rather than slowing a call.
type DecisionLogOptions struct {
	Logger *zap.Logger
	Buffer int               // default DefaultDecisionLogBuffer
	Mask   []string          // input paths to erase, OPA style ("/input/caller/roles"); nil: the default
	Labels map[string]string // OPA's labels (id, version...)
}

// Event is one decision in OPA's decision-log event shape.
type Event struct {
	DecisionID string                    `json:"decision_id"`
	Path       string                    `json:"path"`
	Input      json.RawMessage           `json:"input,omitempty"`
	Result     *WireDecision             `json:"result,omitempty"`
	Error      string                    `json:"error,omitempty"`
	Bundles    map[string]BundleRevision `json:"bundles"`
	Timestamp  time.Time                 `json:"timestamp"`
	Labels     map[string]string         `json:"labels,omitempty"`
	Erased     []string                  `json:"erased,omitempty"`
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
}

type decisionLog struct {
	ch      chan pending
	dropped atomic.Uint64
	z       *zap.Logger
	mask    []string
	labels  map[string]string
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
// that owns the engine is unloaded).
func startDecisionLog(ctx context.Context, o *DecisionLogOptions) *decisionLog {
	if o == nil || o.Logger == nil {
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
	l := &decisionLog{ch: make(chan pending, size), z: o.Logger, mask: mask, labels: o.Labels}
	go l.run(ctx)
	return l
}

// record queues one decision; it never blocks the call.
func (l *decisionLog) record(ctx context.Context, path string, in *Input, d Decision, err error) {
	if l == nil {
		return
	}
	select {
	case l.ch <- pending{id: decisionID(ctx), path: path, in: *in, d: d, err: err, at: time.Now()}:
	default:
		l.dropped.Add(1)
	}
}

func (l *decisionLog) run(ctx context.Context) {
	for {
		select {
		case p := <-l.ch:
			l.write(p)
		case <-ctx.Done():
			return
		}
	}
}

func (l *decisionLog) write(p pending) {
	ev := Event{DecisionID: p.id, Path: p.path, Bundles: map[string]BundleRevision{"wikigate": {p.d.Revision}},
		Timestamp: p.at.UTC(), Labels: l.labels}
	ev.Input, ev.Erased = maskedInput(&p.in, l.mask)
	if p.err != nil {
		ev.Error = p.err.Error()
	} else {
		w := WireOf(p.d)
		ev.Result = &w
	}
	fields := []zap.Field{zap.String("type", "openpolicyagent.org/decision_logs"),
		zap.String("decision_id", ev.DecisionID), zap.String("path", ev.Path),
		zap.Any("input", ev.Input), zap.Any("bundles", ev.Bundles), zap.String("timestamp", ev.Timestamp.Format(time.RFC3339Nano))}
	if ev.Result != nil {
		fields = append(fields, zap.Any("result", ev.Result))
	}
	if ev.Error != "" {
		fields = append(fields, zap.String("error", ev.Error))
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
	l.z.Info("Decision Log", fields...)
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

// eraseInputPath removes an OPA mask path ("/input/a/b") from doc.
func eraseInputPath(doc map[string]any, path string) bool {
	parts := strings.Split(strings.TrimPrefix(path, "/input/"), "/")
	for i, p := range parts {
		if i == len(parts)-1 {
			_, ok := doc[p]
			delete(doc, p)
			return ok
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
// since the last event written.
func (e *Engine) DecisionLogDropped() uint64 {
	if e.dlog == nil {
		return 0
	}
	return e.dlog.dropped.Load()
}
