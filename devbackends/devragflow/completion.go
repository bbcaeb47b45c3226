package devragflow

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// devModelID is the only "LLM" this stand-in offers.
const devModelID = "wikigate-dev-extractive@wikigate"

// wordsPerDelta is how many words each streamed delta carries.
const wordsPerDelta = 4

// DeltaPauseEnv names the environment variable that paces the streamed
// deltas like a model's tokens (a Go duration, at most maxDeltaPause
// between two deltas). Unset, the answer streams at once, as the
// benchmarks want; set, a client has time to hang up mid-answer, and the
// request log shows the generation cancelled.
const DeltaPauseEnv = "WIKIGATE_RAGFLOW_DEV_DELTA_PAUSE"

// maxDeltaPause keeps a mistyped pause from stalling every answer.
const maxDeltaPause = 5 * time.Second

// deltaPause is the wait before each delta after the first (0: none).
func deltaPause() time.Duration {
	d, err := time.ParseDuration(os.Getenv(DeltaPauseEnv))
	if err != nil || d <= 0 {
		return 0
	}
	return min(d, maxDeltaPause)
}

// handleCompletion is session_completion in RA/chat_api.py (docs/backends.md,
// RAGFlow wire details: Completion request) for the solo path: without
// chat_id there is no retrieval, the "LLM" answers the last user message,
// which carries the context.
func (s *Server) handleCompletion(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	req, fail := readJSONObject(w, r)
	if fail != nil {
		s.reply(w, rec, http.StatusOK, fail)
		return
	}
	msgs, body := validateMessages(req)
	if body == nil {
		body = checkChatFields(req, r.PathValue("chat_id"))
	}
	if body != nil {
		s.reply(w, rec, http.StatusOK, body)
		return
	}
	content, errText, errRepr := lastUserContent(msgs)
	msgID := msgs[len(msgs)-1]["id"]
	stream, has := req["stream"]
	if has && !truthy(stream) {
		if errRepr != "" {
			s.reply(w, rec, http.StatusOK, exceptionResult(errRepr))
			return
		}
		s.reply(w, rec, http.StatusOK, jsonResult(codeSuccess, "success", s.soloAnswer(content, msgID)))
		return
	}
	s.streamAnswer(w, r, rec, content, errText, msgID)
}

// validateMessages applies @validate_request("messages") and the G2 message
// checks, and drops system messages and leading assistant messages.
func validateMessages(req map[string]any) ([]map[string]any, map[string]any) {
	raw, has := req["messages"]
	if !has {
		q, ok := req["question"].(string)
		if !ok || strings.TrimSpace(q) == "" {
			return nil, jsonResult(codeArgument, "required argument are missing: messages; ", nil)
		}
		raw = []any{map[string]any{"role": "user", "content": q}}
	}
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, jsonResult(codeArgument, "`messages` must be a non-empty list.", nil)
	}
	var msgs []map[string]any
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, exceptionResult(fmt.Sprintf(`TypeError("'%s' object is not subscriptable")`, pyTypeName(e)))
		}
		role, has := m["role"]
		if !has {
			return nil, exceptionResult("KeyError('role')")
		}
		if role == "system" || (role == "assistant" && len(msgs) == 0) {
			continue
		}
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 || msgs[len(msgs)-1]["role"] != "user" {
		return nil, jsonResult(codeArgument, "The last message must be from user.", nil)
	}
	return msgs, nil
}

// checkChatFields rejects what needs a chat assistant: this stand-in has
// none, so any chat_id is one the key does not own (G2 answers 109 "no
// authorization" before looking the chat up; error.chat_not_owned.json).
func checkChatFields(req map[string]any, pathChatID string) map[string]any {
	chatID := truthy(req["chat_id"]) || pathChatID != ""
	session := truthy(req["session_id"]) || truthy(req["conversation_id"])
	switch {
	case session && !chatID:
		return errorResult(codeData, "`chat_id` is required when `session_id` is provided.")
	case chatID:
		return jsonResult(codeAuthentication, "no authorization", false)
	}
	if llm := req["llm_id"]; truthy(llm) && llm != devModelID {
		return errorResult(codeData, fmt.Sprintf("Cannot use specified model %s.", pyStr(llm)))
	}
	return nil
}

// lastUserContent returns the text the answer is built from. RAGFlow runs
// re.sub over every message's content before calling the LLM, so a missing
// or non-string content raises; errText is str(e), errRepr is repr(e).
func lastUserContent(msgs []map[string]any) (content, errText, errRepr string) {
	for _, m := range msgs {
		c, has := m["content"]
		if !has {
			return "", "'content'", "KeyError('content')"
		}
		if _, ok := c.(string); !ok {
			text := fmt.Sprintf("expected string or bytes-like object, got '%s'", pyTypeName(c))
			return "", text, "TypeError(" + pyStringRepr(text) + ")"
		}
	}
	content, _ = msgs[len(msgs)-1]["content"].(string)
	return content, "", ""
}

// answerText is the extractive answer, or the HTML-escaped empty response
// when the prompt holds nothing that matches the question.
func (s *Server) answerText(content string) string {
	blocks, question := parsePrompt(content)
	if ans := extractiveAnswer(blocks, question); ans != "" {
		return ans
	}
	return htmlEscape(s.cfg.EmptyResponse)
}

// soloAnswer is the non-stream data of async_chat_solo after
// structure_answer: reference {} becomes {"chunks": []}, id is the last
// message's id (null when the client sent none), session_id is "".
func (s *Server) soloAnswer(content string, msgID any) map[string]any {
	return map[string]any{
		"answer":       s.answerText(content),
		"reference":    map[string]any{"chunks": []any{}},
		"audio_binary": nil,
		"prompt":       "",
		"created_at":   pyFloat(s.epochSeconds()),
		"id":           msgID,
		"session_id":   "",
	}
}

// streamAnswer sends delta events without a final event (the solo variation
// of the stream, docs/backends.md, RAGFlow wire details: Stream), or the
// code-500 error event, then the terminator. A client that goes away first
// ends the generation: the log marks the request cancelled.
func (s *Server) streamAnswer(w http.ResponseWriter, r *http.Request, rec *LoggedRequest, content, errText string, msgID any) {
	sse := startSSE(w)
	rec.Code = codeSuccess
	if errText != "" {
		rec.Code = 500
		_ = sse.event(object{{"code", 500}, {"message", errText},
			{"data", object{{"answer", "**ERROR**: " + errText}, {"reference", []any{}}}}})
		_ = sse.event(terminator())
		return
	}
	pause := deltaPause()
	for i, delta := range splitDeltas(s.answerText(content), wordsPerDelta) {
		if i > 0 && !wait(r, pause) {
			rec.Cancelled = true
			return
		}
		data := object{{"answer", delta}, {"reference", object{{"chunks", []any{}}}}, {"audio_binary", nil},
			{"prompt", ""}, {"created_at", s.epochSeconds()}, {"final", false}, {"id", msgID}, {"session_id", ""}}
		if r.Context().Err() != nil || sse.event(object{{"code", 0}, {"message", ""}, {"data", data}}) != nil {
			rec.Cancelled = true
			return
		}
	}
	if sse.event(terminator()) != nil {
		rec.Cancelled = true
	}
}

// wait sleeps d, or reports false as soon as the client is gone.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

// splitDeltas cuts text into pieces of n words; each piece after the first
// starts with the space before its first word, so the pieces concatenate
// back to text exactly.
func splitDeltas(text string, n int) []string {
	var out []string
	start, words, inWord := 0, 0, false
	for i, r := range text {
		isSpace := r == ' '
		if !isSpace && !inWord {
			if words == n {
				j := i
				for j > start && text[j-1] == ' ' {
					j--
				}
				out = append(out, text[start:j])
				start, words = j, 0
			}
			words++
		}
		inWord = !isSpace
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func (s *Server) epochSeconds() float64 {
	return float64(s.now().UnixNano()) / 1e9
}
