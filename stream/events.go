package stream

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/wikigate/wikigate/protocol"
)

// Event names, in the order a stream sends them: status (several), delta
// and citations (interleaved, while the answer is verified), citations
// (final) and the last delta, then result or error, then done, always
// last.
const (
	EventStatus    = "status"
	EventDelta     = "delta"
	EventCitations = "citations"
	EventResult    = "result"
	EventError     = "error"
	EventDone      = "done"
)

// Stages of a status event.
const (
	StageRetrieving = "retrieving"
	StageInScope    = "in_scope"
	StageGenerating = "generating"
)

// Status tells a waiting reader which stage the answer is in.
type Status struct {
	Stage   string `json:"stage"`
	Chunks  *int   `json:"chunks,omitempty"` // in_scope: the chunks the answer may use
	Message string `json:"message"`
}

// StatusOf turns a pipeline stage report ("retrieving", "3 chunks in
// scope", "generating") into its status event.
func StatusOf(report string) Status {
	if n, ok := strings.CutSuffix(report, " chunks in scope"); ok {
		if k, err := strconv.Atoi(n); err == nil {
			return Status{Stage: StageInScope, Chunks: &k, Message: report}
		}
	}
	return Status{Stage: report, Message: report}
}

// Delta is verified answer text to append to what was shown. Its [n] are
// the final citation numbers.
type Delta struct {
	Text string `json:"text"`
}

// Citations lists every citation known so far, numbered as in the
// result ([n] is citations[n-1]); final marks the list the result carries.
type Citations struct {
	Citations []protocol.Citation `json:"citations"`
	Final     bool                `json:"final"`
}

// Done closes every stream.
type Done struct{}

// Wants reports whether the request asks for an event stream: Accept
// names text/event-stream with a weight above zero and at least the
// weight it gives JSON (application/json, else application/*, else */*;
// RFC 9110 §12.5.1). JSON stays the default, so "*/*" or no Accept at all
// is not a request to stream, and "text/event-stream;q=0.1,
// application/json" prefers JSON. Naming both at the same weight (as MCP
// clients do) streams.
func Wants(r *http.Request) bool {
	sse, js := -1.0, acceptWeight{}
	for _, h := range r.Header.Values("Accept") {
		for _, part := range strings.Split(h, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := weight(params["q"])
			switch mt {
			case "text/event-stream":
				sse = max(sse, q)
			case "application/json":
				js.note(3, q)
			case "application/*":
				js.note(2, q)
			case "*/*":
				js.note(1, q)
			}
		}
	}
	return sse > 0 && sse >= js.q
}

// acceptWeight is the weight of the most specific range matching JSON.
type acceptWeight struct {
	specificity int
	q           float64
}

func (a *acceptWeight) note(specificity int, q float64) {
	if specificity > a.specificity || (specificity == a.specificity && q > a.q) {
		a.specificity, a.q = specificity, q
	}
}

// weight reads a q parameter: absent is 1, unreadable or out of range is
// 0 (the range is not wanted).
func weight(q string) float64 {
	if q == "" {
		return 1
	}
	w, err := strconv.ParseFloat(q, 64)
	if err != nil || w < 0 || w > 1 {
		return 0
	}
	return w
}
