package mcp

// Input schemas mirror the HTTP request bodies (docs/protocol.md, "The
// standard request"): the same names, types and limits, so a model that fills
// them in gets the same answer as a client of /agent/tools/*. The gate still
// validates every call strictly; these schemas are what a model reads to build
// the call. Fields the HTTP body accepts but that mean nothing to a tool
// (page, or requireCitations outside ask) are left out rather than documented
// as no-ops; additionalProperties false keeps models from inventing fields.

const schemaQuestionRequired = `"question": {"type": "string", "minLength": 1, "maxLength": 2000,
	"description": "The question or task in natural language (at most 2000 characters)."}`

const schemaScope = `"scope": {"type": "object", "additionalProperties": false,
	"description": "Optional narrowing of what to look at. It is only a request: the gate's policy decides the effective scope, and asking for anything outside your grant is refused with forbidden_scope. Omit it to use your whole grant.",
	"properties": {
		"projects": {"type": "array", "maxItems": 20, "items": {"type": "string", "maxLength": 128}, "description": "Wiki projects (e.g. kunora-kgent)."},
		"paths": {"type": "array", "maxItems": 20, "items": {"type": "string", "maxLength": 512}, "description": "Page path prefixes inside the projects (e.g. publish/system/components/kunora-kgent/)."},
		"version": {"type": "string", "maxLength": 128, "description": "Docs version, e.g. main."},
		"includeWorkingDocs": {"type": "boolean", "default": false, "description": "Include unpublished working documents; only some callers are allowed to."}
	}}`

const schemaCaller = `"caller": {"type": "object", "additionalProperties": false,
	"description": "Optional self-description. Your identity comes from your credential; naming someone else is refused. purpose is kept in the audit record.",
	"properties": {
		"type": {"type": "string", "enum": ["agent", "human"]},
		"id": {"type": "string", "maxLength": 128},
		"purpose": {"type": "string", "maxLength": 128, "description": "Why you are calling, for the audit trail."}
	}}`

const schemaCitationIn = `{"type": "object", "required": ["path"], "additionalProperties": false,
	"properties": {
		"path": {"type": "string", "maxLength": 512}, "url": {"type": "string"}, "title": {"type": "string"},
		"anchor": {"type": "string"}, "chunkId": {"type": "string"}, "sourceProject": {"type": "string"}, "version": {"type": "string"}
	}}`

var inputSearch = rawSchema(`{"type": "object", "additionalProperties": false, "required": ["question"],
	"properties": {` + schemaQuestionRequired + `,
		"limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "Maximum number of page hits."},
		` + schemaScope + `, ` + schemaCaller + `}}`)

var inputAsk = rawSchema(`{"type": "object", "additionalProperties": false, "required": ["question"],
	"properties": {` + schemaQuestionRequired + `,
		"requireCitations": {"type": "boolean", "default": true, "description": "When true (the default) an answer without a valid citation is replaced by an honest no-answer."},
		` + schemaScope + `, ` + schemaCaller + `}}`)

// inputGetPage takes exactly one of path and paths. The schema says so in
// words, not with a top-level oneOf: Anthropic's API refuses a tool whose
// input schema has a top-level oneOf, anyOf or allOf, and Claude Code drops
// such a tool (docs/agents.md "MCP"). The gate still refuses both or neither with
// invalid_request, on MCP as on /agent/tools/get_page.
var inputGetPage = rawSchema(`{"type": "object", "additionalProperties": false,
	"description": "Give exactly one of path and paths: both, or neither, is refused with invalid_request.",
	"properties": {
		"path": {"type": "string", "minLength": 1, "maxLength": 512, "description": "One page path, e.g. publish/system/components/kunora-kgent/index.md (as returned in search hits and citations). Give this or paths, not both."},
		"paths": {"type": "array", "minItems": 1, "maxItems": 10, "items": {"type": "string", "minLength": 1, "maxLength": 512}, "description": "Up to 10 page paths; pages you may not read or that do not exist are listed in errors, the others are returned. Give this or path, not both."},
		` + schemaScope + `, ` + schemaCaller + `}}`)

var inputGetContext = rawSchema(`{"type": "object", "additionalProperties": false, "required": ["question"],
	"properties": {` + schemaQuestionRequired + `,
		"maxTokens": {"type": "integer", "minimum": 1, "maximum": 12000, "default": 4000, "description": "Token budget of the returned context."},
		` + schemaScope + `, ` + schemaCaller + `}}`)

// feedbackProperties are shared by create_feedback and
// create_improvement_task, which take the same body.
const feedbackProperties = `
		"eventType": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$", "description": "What happened, e.g. qa_no_answer for a question the wiki could not answer."},
		"question": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "The question or need the wiki did not meet."},
		"citations": {"type": "array", "maxItems": 20, "items": ` + schemaCitationIn + `, "description": "Pages involved (e.g. the citations of an unsatisfying answer); they must lie in your scope."},
		"comment": {"type": "string", "maxLength": 4000},
		"title": {"type": "string", "maxLength": 200, "description": "Short title of the gap or task."},
		"idempotencyKey": {"type": "string", "pattern": "^[A-Za-z0-9._:-]{1,128}$", "description": "Send the same key when retrying: the first response is replayed instead of recording twice; a different body under the same key is refused with idempotency_conflict."},
		"dedupeKey": {"type": "string", "maxLength": 128, "description": "Accepted for convenience and ignored: the gate computes the key (same event, question and scope)."},
		` + schemaScope + `, ` + schemaCaller

var inputCreateFeedback = rawSchema(`{"type": "object", "additionalProperties": false, "required": ["eventType", "question"],
	"properties": {` + feedbackProperties + `}}`)

var inputCreateTask = rawSchema(`{"type": "object", "additionalProperties": false, "required": ["eventType", "question"],
	"properties": {` + feedbackProperties + `}}`)
