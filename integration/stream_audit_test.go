package integration

import (
	"reflect"
	"testing"
)

// auditOf is the audit record of one request, without what differs
// between two calls of the same question (ids, times, latencies).
func auditOf(t *testing.T, logFile, requestID string) map[string]any {
	t.Helper()
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["request_id"] == requestID })
	out := map[string]any{}
	for k, v := range rec {
		switch k {
		case "ts", "request_id", "duration", "backends":
			continue
		}
		out[k] = v
	}
	return out
}

// A streamed answer is audited and counted as the JSON route's: one
// record, with the same fields (decision, scope, tool, result, status,
// citations…) as the same question asked for JSON, and one ok in
// caddy_wikigate_calls_total.
func TestStreamIsAuditedAndCountedAsTheJSONRoute(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{})
	const body = `{"question":"How do I configure agent memory?","page":{"url":"/system/components/kunora-kgent/"}}`
	before := callCounts(t, g)

	j := g.post("/answer/ask", nil, body)
	jsonID := j.json(t)["audit"].(map[string]any)["requestId"].(string)
	resp := g.streamAsk(t.Context(), "/answer/ask", nil, body)
	result, _ := checkSequence(t, readEvents(t, resp.Body, nil))
	resp.Body.Close()
	streamID := result["audit"].(map[string]any)["requestId"].(string)
	if resp.Header.Get("X-Request-Id") != streamID {
		t.Fatalf("X-Request-Id %q, result's requestId %q", resp.Header.Get("X-Request-Id"), streamID)
	}

	jsonRec, streamRec := auditOf(t, logFile, jsonID), auditOf(t, logFile, streamID)
	if !reflect.DeepEqual(jsonRec, streamRec) {
		t.Fatalf("the stream's audit record differs from the JSON call's:\nstream %v\n  json %v", streamRec, jsonRec)
	}
	if streamRec["status"] != float64(200) || streamRec["endpoint"] != "/answer/ask" || streamRec["decision"] == nil ||
		streamRec["effective_scope"] == nil || streamRec["citations"] == float64(0) {
		t.Fatalf("stream audit record: %v", streamRec)
	}
	records := 0
	for _, l := range gateLogLines(t, logFile) {
		if l["logger"] == "http.handlers.wikigate.audit" && l["request_id"] == streamID {
			records++
		}
	}
	if records != 1 {
		t.Fatalf("%d audit records for one streamed call", records)
	}
	result0 := streamRec["result"].(string)
	waitFor(t, "two calls counted", func() bool { return callCounts(t, g)[result0] == before[result0]+2 })
}
