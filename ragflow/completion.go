package ragflow

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"strings"
)

// Message is one chat message. RAGFlow drops system messages and leading
// assistant messages, and the last one must come from the user.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Roles of Message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Completion is a generated answer. Reference is the chunks RAGFlow says it
// used; without a chat assistant (the gate's case) it is usually empty, and
// the caller numbers its own retrieved chunks instead (BuildPrompt).
type Completion struct {
	Answer    string
	Reference []Chunk
	// Usage is the tokens the completion cost: as RAGFlow reported them,
	// else estimated (Usage.Estimated).
	Usage Usage

	reported wireUsage // what the backend said, before the estimate
}

// completionRequest is the complete allow-list of what Complete sends: no
// chat_id (so RAGFlow does no retrieval of its own over datasets the policy
// did not decide), no session, no kb_ids, doc_ids or knowledge.
type completionRequest struct {
	Messages []Message `json:"messages"`
	Stream   bool      `json:"stream"`
}

// completionData is the data of a completion envelope or SSE event.
type completionData struct {
	Answer       string          `json:"answer"`
	Reference    json.RawMessage `json:"reference"`
	Final        bool            `json:"final"`
	StartToThink bool            `json:"start_to_think"`
	EndToThink   bool            `json:"end_to_think"`
	Usage        json.RawMessage `json:"usage"`
}

// errorAnswerPrefix marks an exception RAGFlow reports inside an answer
// (docs/backends.md, RAGFlow wire details: Stream); such an answer is a
// failure, never text for a user.
const errorAnswerPrefix = "**ERROR**"

// Complete runs POST /api/v1/chat/completions without chat_id: RAGFlow's
// default LLM answers msgs. With stream false the JSON envelope is parsed;
// with stream true the SSE events are read to the terminator and the
// answer deltas concatenated (thinking between start_to_think and
// end_to_think left out). Error events, "**ERROR**" answers and a stream
// cut before its terminator are errors.
func (c *Client) Complete(ctx context.Context, msgs []Message, stream bool) (*Completion, error) {
	return c.CompleteFunc(ctx, msgs, stream, nil)
}

// CompleteFunc is Complete that also hands onText, when set, the answer
// as it stands after each streamed delta (thinking left out), so a caller
// can verify and show a long generation while it arrives. The returned
// Completion is what Complete returns; onText is never called for a
// JSON answer or after an error event.
func (c *Client) CompleteFunc(ctx context.Context, msgs []Message, stream bool, onText func(answer string)) (*Completion, error) {
	cl, err := c.send(ctx, http.MethodPost, c.completionURL, completionRequest{Messages: msgs, Stream: stream}, true, c.generation)
	if err != nil {
		return nil, err
	}
	defer cl.close()
	if stream && cl.resp.StatusCode >= 200 && cl.resp.StatusCode <= 299 && isEventStream(cl.resp) {
		comp, err := c.readStream(cl, onText)
		if err != nil {
			return nil, err
		}
		return withUsage(comp, msgs, comp.reported), nil
	}
	// Errors come back as a JSON envelope even for stream requests.
	env, err := c.readEnvelope(cl)
	if err != nil {
		return nil, err
	}
	var data completionData
	if !isJSONObject(env.Data) || json.Unmarshal(env.Data, &data) != nil {
		return nil, badResponse("completion data is not an answer")
	}
	if isErrorAnswer(data.Answer) {
		return nil, &Error{Kind: Rejected, HTTPStatus: cl.resp.StatusCode, Detail: c.backendDetail(data.Answer)}
	}
	ref, err := referenceChunks(data.Reference)
	if err != nil {
		return nil, err
	}
	reported, _ := usageFromJSON(data.Usage)
	return withUsage(&Completion{Answer: data.Answer, Reference: ref}, msgs, reported), nil
}

// isEventStream is true unless the server said the body is JSON or HTML
// (an error envelope or an error page): RAGFlow sets text/event-stream, but
// a stream labelled otherwise, or not at all, is still read as one and must
// then parse as one.
func isEventStream(resp *http.Response) bool {
	ct := resp.Header.Get("Content-Type")
	if rest, ok := strings.CutPrefix(ct, "text/event-stream"); ok && (rest == "" || rest[0] == ';') {
		// RAGFlow's own label: its media type is text/event-stream, or it
		// does not parse; true either way, without parsing its parameters.
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return true
	}
	return mt != "application/json" && mt != "text/html"
}

func isErrorAnswer(answer string) bool {
	return strings.HasPrefix(strings.TrimSpace(answer), errorAnswerPrefix)
}

// referenceChunks reads a completion's reference: {"chunks": [...]} (native
// route), a bare list (OpenAI route), or {} / [] / null for none.
func referenceChunks(raw json.RawMessage) ([]Chunk, error) {
	raw = bytes.TrimSpace(raw)
	out := []Chunk{}
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return out, nil
	case raw[0] == '[':
		if json.Unmarshal(raw, &out) != nil {
			return nil, badResponse("reference is not a chunk list")
		}
	case raw[0] == '{':
		var ref struct {
			Chunks []Chunk `json:"chunks"`
		}
		if json.Unmarshal(raw, &ref) != nil {
			return nil, badResponse("reference chunks are malformed")
		}
		if ref.Chunks != nil {
			out = ref.Chunks
		}
	default:
		return nil, badResponse("reference is not an object")
	}
	return out, nil
}
