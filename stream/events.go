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

// Wants reports whether the request asks for an event stream: one of its
// Accept media ranges is text/event-stream. JSON stays the default, so
// "*/*" or no Accept at all is not a request to stream.
func Wants(r *http.Request) bool {
	for _, h := range r.Header.Values("Accept") {
		for _, part := range strings.Split(h, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err == nil && mt == "text/event-stream" && params["q"] != "0" {
				return true
			}
		}
	}
	return false
}
