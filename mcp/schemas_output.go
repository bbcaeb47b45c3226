package mcp

import (
	"encoding/json"
	"fmt"
)

// Output schemas describe structuredContent: the exact body the HTTP route
// returns (docs/protocol.md, "Results"), so a client that already parses the
// HTTP responses parses these too. They list what is always present as
// required and allow nothing else, which also lets a client check that the
// gate did not leak a field it should not have.

const schemaAudit = `{"type": "object", "required": ["requestId", "caller", "scope"], "properties": {
	"requestId": {"type": "string"}, "caller": {"type": "string"}, "scope": {"type": "string"}, "sessionId": {"type": "string"}}}`

const schemaCitation = `{"type": "object", "required": ["path", "url", "title", "anchor", "chunkId", "sourceProject", "version"], "properties": {
	"path": {"type": "string"}, "url": {"type": "string"}, "title": {"type": "string"}, "anchor": {"type": "string"},
	"chunkId": {"type": "string"}, "sourceProject": {"type": "string"}, "version": {"type": "string"}}}`

const schemaScopeOut = `{"type": "object", "properties": {
	"projects": {"type": "array", "items": {"type": "string"}}, "paths": {"type": "array", "items": {"type": "string"}},
	"version": {"type": "string"}, "includeWorkingDocs": {"type": "boolean"}}}`

var resultSearch = rawSchema(`{"type": "object", "required": ["hits", "total", "audit"], "properties": {
	"hits": {"type": "array", "items": {"type": "object", "required": ["path", "url", "title", "snippet", "score", "sourceProject", "version"], "properties": {
		"path": {"type": "string"}, "url": {"type": "string"}, "title": {"type": "string"}, "anchor": {"type": "string"},
		"snippet": {"type": "string"}, "score": {"type": "number"}, "sourceProject": {"type": "string"}, "version": {"type": "string"}}}},
	"total": {"type": "integer"},
	"audit": ` + schemaAudit + `}}`)

var resultGetPage = rawSchema(`{"type": "object", "required": ["pages", "errors", "audit"], "properties": {
	"pages": {"type": "array", "items": {"type": "object", "required": ["path", "url", "title", "version", "sourceProject", "content", "headings"], "properties": {
		"path": {"type": "string"}, "url": {"type": "string"}, "title": {"type": "string"}, "version": {"type": "string"},
		"sourceProject": {"type": "string"}, "content": {"type": "string"}, "headings": {"type": ["array", "null"], "items": {"type": "string"}}}}},
	"errors": {"type": ["array", "null"], "items": {"type": "object", "required": ["path", "code", "message"], "properties": {
		"path": {"type": "string"}, "code": {"type": "string"}, "message": {"type": "string"}}}},
	"audit": ` + schemaAudit + `}}`)

var resultAsk = rawSchema(`{"type": "object", "required": ["answer", "summary", "citations", "confidence", "grounding", "noAnswerReason", "relatedPages", "actions", "audit"], "properties": {
	"answer": {"type": "string", "description": "The answer; [n] markers refer to citations[n-1]."},
	"summary": {"type": "string"},
	"citations": {"type": ["array", "null"], "items": ` + schemaCitation + `},
	"confidence": {"type": "string", "enum": ["high", "medium", "low"]},
	"grounding": {"type": "object", "required": ["status"], "properties": {
		"status": {"type": "string", "enum": ["grounded", "partial", "ungrounded"]}, "citedSentences": {"type": "integer"},
		"sentences": {"type": "integer"}, "droppedSentences": {"type": "integer"}, "supported": {"type": "number"},
		"sources": {"type": "integer"}, "topScore": {"type": "number"},
		"citations": {"type": ["array", "null"], "description": "How well each citation supports the sentences that carry it.", "items": {"type": "object", "required": ["ref", "chunkId", "sentences", "support", "gateCited"], "properties": {
			"ref": {"type": "integer"}, "chunkId": {"type": "string"}, "sentences": {"type": "integer"},
			"support": {"type": "number", "description": "The lowest support score (0..1) among its sentences."},
			"gateCited": {"type": "integer", "description": "Sentences the gate cited on the model's behalf (requireCitations false)."}}}}}},
	"noAnswerReason": {"type": ["object", "null"], "required": ["code", "reason", "message"], "properties": {
		"code": {"type": "string", "const": "no_answer"}, "reason": {"type": "string"}, "message": {"type": "string"}}},
	"relatedPages": {"type": ["array", "null"], "items": {"type": "object", "properties": {
		"path": {"type": "string"}, "url": {"type": "string"}, "title": {"type": "string"}, "sourceProject": {"type": "string"},
		"version": {"type": "string"}, "score": {"type": "number"}}}},
	"actions": {"type": ["array", "null"], "items": {"type": "object", "required": ["type", "enabled", "dedupeKey"], "properties": {
		"type": {"type": "string"}, "enabled": {"type": "boolean"}, "dedupeKey": {"type": "string"},
		"endpoint": {"type": "string", "description": "The route that takes the action where it is not the agent tool (people's answers: /answer/feedback)."}}}},
	"citationSummary": {"type": "array", "items": ` + schemaCitation + `},
	"audit": ` + schemaAudit + `}}`)

var resultGetContext = rawSchema(`{"type": "object", "required": ["question", "scope", "items", "citations", "tokenEstimate", "maxTokens", "truncated", "audit"], "properties": {
	"question": {"type": "string"},
	"scope": ` + schemaScopeOut + `,
	"items": {"type": ["array", "null"], "items": {"type": "object", "required": ["path", "url", "title", "chunkId", "content"], "properties": {
		"path": {"type": "string"}, "url": {"type": "string"}, "title": {"type": "string"}, "anchor": {"type": "string"},
		"chunkId": {"type": "string"}, "content": {"type": "string"}, "score": {"type": "number"},
		"sourceProject": {"type": "string"}, "version": {"type": "string"}}}},
	"citations": {"type": ["array", "null"], "items": ` + schemaCitation + `},
	"tokenEstimate": {"type": "integer"}, "maxTokens": {"type": "integer"}, "truncated": {"type": "boolean"},
	"audit": ` + schemaAudit + `}}`)

var resultFeedback = rawSchema(`{"type": "object", "required": ["record", "created", "audit"], "properties": {
	"record": {"type": "object", "required": ["id", "type", "eventType", "dedupeKey", "status", "count", "firstSeenAt", "lastSeenAt"], "properties": {
		"id": {"type": "string"}, "type": {"type": "string"}, "eventType": {"type": "string"},
		"dedupeKey": {"type": "string", "description": "The same gap reported again (by anyone) merges into this record."},
		"status": {"type": "string"}, "count": {"type": "integer"},
		"firstSeenAt": {"type": "string", "format": "date-time"}, "lastSeenAt": {"type": "string", "format": "date-time"},
		"issue": {"type": "object", "properties": {"number": {"type": "integer"}, "url": {"type": "string"}, "state": {"type": "string"}}},
		"ratings": {"type": ["object", "null"], "required": ["helpful", "notHelpful"], "description": "People's ratings of an answer (POST /answer/feedback).", "properties": {
			"helpful": {"type": "integer"}, "notHelpful": {"type": "integer"}}}}},
	"created": {"type": "boolean", "description": "false when an existing record was merged or a retry replayed."},
	"audit": ` + schemaAudit + `}}`)

var (
	outputSearch     = outputSchema(resultSearch)
	outputGetPage    = outputSchema(resultGetPage)
	outputAsk        = outputSchema(resultAsk)
	outputGetContext = outputSchema(resultGetContext)
	outputFeedback   = outputSchema(resultFeedback)
)

// ToolSchema is a tool's input schema and the schema of its result, as
// JSON Schema 2020-12 (OpenAPI 3.1's dialect).
type ToolSchema struct {
	// Input is the tool's inputSchema: what a model fills in.
	Input json.RawMessage
	// Result is the body the tool's HTTP route answers 200 with, which is
	// also the MCP result's structuredContent (its outputSchema adds the
	// isError shape).
	Result json.RawMessage
}

// ToolSchemas are the tools' schemas by tool name. Package openapi takes
// the HTTP routes' result schemas from here and checks its request
// schemas against the inputs, so docs/openapi.json and tools/list cannot
// disagree (docs/agents.md, MCP).
func ToolSchemas() map[string]ToolSchema {
	return map[string]ToolSchema{
		"search":                  {Input: inputSearch, Result: resultSearch},
		"get_page":                {Input: inputGetPage, Result: resultGetPage},
		"ask":                     {Input: inputAsk, Result: resultAsk},
		"get_context":             {Input: inputGetContext, Result: resultGetContext},
		"create_feedback":         {Input: inputCreateFeedback, Result: resultFeedback},
		"create_improvement_task": {Input: inputCreateTask, Result: resultFeedback},
	}
}

// schemaToolError is the structuredContent of an isError result: the
// protocol error code the model can act on (forbidden_scope, ...).
const schemaToolError = `{"type": "object", "required": ["code", "message"], "properties": {
	"code": {"type": "string"}, "message": {"type": "string"}}}`

// outputSchema lets a result schema also describe the isError shape
// {"error":{"code","message"}}: clients that validate structuredContent
// against outputSchema even on errors must not reject a denial. The
// top-level stays type "object" (older clients require it); what is
// required moves into anyOf so either shape validates.
func outputSchema(result json.RawMessage) json.RawMessage {
	var v map[string]any
	if err := json.Unmarshal(result, &v); err != nil {
		panic(err)
	}
	var errSchema map[string]any
	if err := json.Unmarshal(rawSchema(schemaToolError), &errSchema); err != nil {
		panic(err)
	}
	v["properties"].(map[string]any)["error"] = errSchema
	v["anyOf"] = []any{map[string]any{"required": v["required"]}, map[string]any{"required": []any{"error"}}}
	delete(v, "required")
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return out
}

// rawSchema checks a hand-written schema once, at start-up, so a typo is a
// failing test instead of a client that cannot list tools.
func rawSchema(s string) json.RawMessage {
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(fmt.Sprintf("mcp: invalid JSON schema: %v", err))
	}
	compact, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return compact
}
