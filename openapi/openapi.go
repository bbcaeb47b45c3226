// Package openapi writes the OpenAPI 3.1 document of the gate's HTTP routes
// (docs/openapi.json) from the route table (gateway.RouteDocs) and the Go
// types each route decodes and answers, so the document changes whenever a
// route or a field does. TestDocumentIsCurrent fails while docs/openapi.json
// differs from what Build writes; regenerate it with
//
//	go generate ./openapi
//
// (which runs go test ./openapi -run TestDocumentIsCurrent -update). The
// tool routes' result schemas are the MCP tools' (mcp.ToolSchemas), so the
// document and tools/list describe one body one way.
package openapi

//go:generate go test . -run ^TestDocumentIsCurrent$ -update

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/mcp"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/stream"
)

// Build returns the document for routes, indented JSON ending in a newline.
func Build(routes []gateway.RouteDoc) ([]byte, error) {
	b := builder{schemas: map[string]*jsonschema.Schema{}, names: map[reflect.Type]string{}}
	if err := b.toolResults(routes); err != nil {
		return nil, err
	}
	paths := map[string]any{"/healthz": healthPath(), "/openapi.json": servedDocumentPath()}
	for _, rt := range routes {
		op, err := b.operation(rt)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", rt.Method, rt.Path, err)
		}
		paths[rt.Path] = map[string]any{strings.ToLower(rt.Method): op}
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "wikigate",
			"version": "answer-agent-access-protocol",
			"summary": "The gate's HTTP routes: the Agent Access tools, the Answer API and the Meilisearch-compatible search routes.",
			"description": "Generated from the gate's route table and the Go types each route decodes and answers " +
				"(package openapi); docs/protocol.md explains each route, the error codes and the order of checks. " +
				"Request bodies are decoded strictly: an unknown, duplicate or case-variant member is 400 invalid_request.",
			"license": map[string]any{"name": "Apache License 2.0", "identifier": "Apache-2.0"},
		},
		// One gate serves this document; its routes are relative to it.
		"servers": []any{map[string]any{"url": "/", "description": "The gate that serves this document at /openapi.json."}},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": securitySchemes(),
			"schemas":         b.schemas,
		},
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// builder collects the named schemas the operations refer to.
type builder struct {
	schemas map[string]*jsonschema.Schema
	names   map[reflect.Type]string
	// tools are the MCP result schemas of the Go types the tools' routes
	// answer: those types' schemas come from there, not from the type.
	tools map[reflect.Type]*jsonschema.Schema
}

// toolResults takes the result schema of each tool route
// (/agent/tools/<tool>) from package mcp, the schemas tools/list shows as
// outputSchema, so that the two descriptions of one body are one. Every
// route answering the same Go type (/answer/ask answers ask's) gets it.
func (b *builder) toolResults(routes []gateway.RouteDoc) error {
	b.tools = map[reflect.Type]*jsonschema.Schema{}
	tools := mcp.ToolSchemas()
	for _, rt := range routes {
		ts, ok := tools[rt.Tool]
		if !ok || rt.Path != toolPath+rt.Tool || rt.Response == nil {
			continue
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(ts.Result, &s); err != nil {
			return fmt.Errorf("mcp result schema of %s: %w", rt.Tool, err)
		}
		b.tools[rt.Response] = &s
	}
	return nil
}

// toolPath is where the Agent Access tools are served over HTTP.
const toolPath = "/agent/tools/"

// ref names t's schema under components/schemas and returns a reference.
func (b *builder) ref(t reflect.Type) (map[string]any, error) {
	name, ok := b.names[t]
	if !ok {
		name = exportedName(t)
		if _, taken := b.schemas[name]; taken {
			return nil, fmt.Errorf("two Go types are named %s", name)
		}
		s, err := b.tools[t], error(nil)
		if s == nil {
			s, err = jsonschema.ForType(t, nil)
		}
		if err != nil {
			return nil, err
		}
		b.names[t], b.schemas[name] = name, s
	}
	return map[string]any{"$ref": "#/components/schemas/" + name}, nil
}

// requestRef is ref for a request body. A struct field without omitempty
// is not required in a request (the strict decoder refuses unknown members,
// not absent ones; what a route requires is its validation, in
// docs/protocol.md), so the schema inferred from the Go type loses its
// required lists.
func (b *builder) requestRef(t reflect.Type) (map[string]any, error) {
	ref, err := b.ref(t)
	if err == nil {
		optional(b.schemas[b.names[t]])
	}
	return ref, err
}

// optional clears required in s and every schema inside it.
func optional(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.Required = nil
	for _, p := range s.Properties {
		optional(p)
	}
	optional(s.Items)
	optional(s.AdditionalProperties)
	for _, sub := range slices.Concat(s.PrefixItems, s.AnyOf, s.OneOf, s.AllOf) {
		optional(sub)
	}
}

// operation describes one route.
func (b *builder) operation(rt gateway.RouteDoc) (map[string]any, error) {
	op := map[string]any{
		"operationId": operationID(rt.Path),
		"summary":     summary(rt),
		"security":    security(rt.People),
	}
	if params := parameters(rt.Path); len(params) > 0 {
		op["parameters"] = params
	}
	if rt.Request != nil {
		ref, err := b.requestRef(rt.Request)
		if err != nil {
			return nil, err
		}
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref}}}
	}
	ok := map[string]any{}
	if rt.Response != nil {
		ref, err := b.ref(rt.Response)
		if err != nil {
			return nil, err
		}
		ok["application/json"] = map[string]any{"schema": ref}
	}
	if rt.Stream {
		events, err := b.events()
		if err != nil {
			return nil, err
		}
		ok["text/event-stream"] = map[string]any{"schema": map[string]any{"type": "string",
			"description": "Server-sent events: status (several), delta and citations (interleaved), then result or error, then done; " +
				"each event's data is one line of JSON, whose schema x-wikigate-events names by event. docs/docs-sites.md describes them."},
			"x-wikigate-events": events}
	}
	if len(ok) == 0 {
		return nil, fmt.Errorf("the route answers neither JSON nor an event stream: give it a Response type in gateway.responseOf")
	}
	errRef, err := b.ref(rt.Error)
	if err != nil {
		return nil, err
	}
	errContent := map[string]any{"application/json": map[string]any{"schema": errRef}}
	op["responses"] = map[string]any{
		"200": map[string]any{"description": "The call's result.", "content": ok},
		"4XX": map[string]any{"description": "Refused: the body names the code (docs/protocol.md, Errors).", "content": errContent},
		"5XX": map[string]any{"description": "A backend or store is unavailable (503); never a stack trace.", "content": errContent},
	}
	return op, nil
}

// events are the schemas of an answer stream's events by event name
// (package stream): OpenAPI 3.1 has no way to describe an event stream's
// items, so they are an extension, which the integration tests check each
// streamed event against.
func (b *builder) events() (map[string]any, error) {
	types := []struct {
		event string
		t     reflect.Type
	}{
		{stream.EventStatus, reflect.TypeFor[stream.Status]()},
		{stream.EventDelta, reflect.TypeFor[stream.Delta]()},
		{stream.EventCitations, reflect.TypeFor[stream.Citations]()},
		{stream.EventResult, reflect.TypeFor[protocol.AnswerResult]()},
		{stream.EventError, reflect.TypeFor[protocol.ErrorBody]()},
		{stream.EventDone, reflect.TypeFor[stream.Done]()},
	}
	out := map[string]any{}
	for _, e := range types {
		if e.t.PkgPath() == reflect.TypeFor[stream.Done]().PkgPath() {
			// Written out, not a component: a component only an extension
			// refers to is an unused one to OpenAPI linters.
			s, err := jsonschema.ForType(e.t, nil)
			if err != nil {
				return nil, err
			}
			out[e.event] = s
			continue
		}
		ref, err := b.ref(e.t)
		if err != nil {
			return nil, err
		}
		out[e.event] = ref
	}
	return out, nil
}

// security lists the credentials a route takes: agents' JWTs and API keys
// everywhere, and on the people's routes an SSO token or none at all
// (anonymous, as the site mode allows). One credential per call.
func security(people bool) []any {
	s := []any{map[string]any{"agentJWT": []any{}}, map[string]any{"agentApiKey": []any{}}}
	if people {
		s = append(s, map[string]any{"ssoBearer": []any{}}, map[string]any{})
	}
	return s
}

func securitySchemes() map[string]any {
	return map[string]any{
		"agentJWT": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
			"description": "An agent's JWT (HMAC, PEM public keys or a JWKS URL), as `wikigate token --agent` signs in development."},
		"agentApiKey": map[string]any{"type": "apiKey", "in": "header", "name": "X-Agent-Api-Key",
			"description": "A hashed API key from `wikigate key create`. Never together with Authorization."},
		"ssoBearer": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
			"description": "A person's SSO token with roles (authenticated-read); the people's routes also take anonymous callers in public-read."},
	}
}

var pathParam = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// parameters are the path's parameters, and the session token a session's
// routes require.
func parameters(path string) []any {
	var ps []any
	for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
		ps = append(ps, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	if strings.HasPrefix(path, "/answer/sessions/") {
		ps = append(ps, map[string]any{"name": "X-Session-Token", "in": "header", "required": true,
			"description": "The token POST /answer/sessions returned; the caller must also be the session's owner.",
			"schema":      map[string]any{"type": "string"}})
	}
	return ps
}

func summary(rt gateway.RouteDoc) string {
	kind := "agents"
	if rt.People {
		kind = "people and agents"
	}
	access := "read"
	if rt.Write {
		access = "write"
	}
	return fmt.Sprintf("%s (tool %s, %s; %s)", rt.Path, rt.Tool, access, kind)
}

// operationID is the path as one identifier: /agent/tools/get_page →
// agentToolsGetPage.
func operationID(path string) string {
	var b strings.Builder
	upper := false
	for _, r := range path {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if upper && b.Len() > 0 {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			upper = false
		default:
			upper = true
		}
	}
	return b.String()
}

// exportedName is a Go type's name with its first letter upper-cased.
func exportedName(t reflect.Type) string {
	n := []rune(t.Name())
	if len(n) == 0 {
		return "Anonymous"
	}
	n[0] = unicode.ToUpper(n[0])
	return string(n)
}

// anonymous is the security of a route that takes no credential: an
// empty requirement, so the document says so rather than leaving it out.
var anonymous = []any{map[string]any{}}

func healthPath() map[string]any {
	return map[string]any{"get": map[string]any{
		"operationId": "healthz",
		"security":    anonymous,
		"summary":     "The gate's health: policy revision and evaluator, backends, stores (no credential).",
		"responses": map[string]any{
			"200": map[string]any{"description": "Healthy.", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}},
			"503": map[string]any{"description": "A backend or the policy is not ready.", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}},
		},
	}}
}

// servedDocumentPath is GET /openapi.json, where the gate serves this document
// for the routes it serves.
func servedDocumentPath() map[string]any {
	return map[string]any{"get": map[string]any{
		"operationId": "openapi",
		"security":    anonymous,
		"summary":     "This document, for the routes this gate serves (no credential).",
		"responses": map[string]any{
			"200": map[string]any{"description": "The OpenAPI 3.1 document.", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}},
		},
	}}
}
