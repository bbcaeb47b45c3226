package policies

import (
	"encoding/binary"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/wikigate/wikigate/protocol"
)

// The policy's input is the JSON encoding of Input (input_json.go writes
// it for the Wasm evaluator). Encoding it to JSON,
// decoding it and converting the result to OPA's AST cost more than the
// shipped policy's whole evaluation, so toAST builds the AST value directly
// and inputKey writes a compact canonical form for the decision cache. Both
// mirror the json tags of Input, Caller, SessionInput, Page and
// protocol.Scope, omitempty included; input_value_test.go checks them
// against encoding/json on generated inputs, so a new field that is not
// added here fails the tests instead of being silently invisible.

// toAST is in as the policy sees it, identical to its JSON encoding.
func (in *Input) toAST() ast.Value {
	obj := ast.NewObject(
		item("endpoint", stringTerm(in.Endpoint)),
		item("tool", stringTerm(in.Tool)),
		item("action", stringTerm(in.Action)),
		item("site_mode", stringTerm(in.SiteMode)),
		item("caller", callerTerm(&in.Caller)),
		item("scope", optionalScopeTerm(in.Scope)),
	)
	if len(in.Pages) > 0 {
		obj.Insert(stringTerm("pages"), stringsTerm(in.Pages))
	}
	if in.Page != nil {
		obj.Insert(stringTerm("page"), pageTerm(in.Page))
	}
	if in.Session != nil {
		obj.Insert(stringTerm("session"), ast.ObjectTerm(item("scope", scopeTerm(&in.Session.Scope))))
	}
	return obj
}

func item(key string, value *ast.Term) [2]*ast.Term {
	return ast.Item(stringTerm(key), value)
}

// sharedTerms are the input's keys and the values most calls repeat (caller
// types, actions, site modes, credentials, tools), built once: an input
// then allocates terms only for its own ids, paths and the like. Terms are
// never modified once built, so every evaluation may share them.
var sharedTerms = func() map[string]*ast.Term {
	words := []string{
		"endpoint", "tool", "action", "site_mode", "caller", "scope", "pages", "page", "session",
		"type", "id", "anonymous", "roles", "credential",
		"projects", "paths", "version", "includeWorkingDocs", "path", "url",
		"agent", "human", "read", "write", "public-read", "authenticated-read",
		"jwt", "api_key", "sso", "main",
		"search", "ask", "get_page", "get_context", "create_feedback", "create_improvement_task",
		"/agent/tools/search", "/agent/tools/ask", "/agent/tools/get_page", "/agent/tools/get_context",
		"/agent/tools/create_feedback", "/agent/tools/create_improvement_task",
		"/answer/ask", "/answer/search", "/answer/feedback", "/answer/sessions", "/mcp",
	}
	terms := make(map[string]*ast.Term, len(words))
	for _, w := range words {
		terms[w] = ast.StringTerm(w)
	}
	return terms
}()

// stringTerm is s as a term, shared when it is one of sharedTerms.
func stringTerm(s string) *ast.Term {
	if t, ok := sharedTerms[s]; ok {
		return t
	}
	return ast.StringTerm(s)
}

func callerTerm(c *Caller) *ast.Term {
	roles := ast.InternedNullTerm
	if c.Roles != nil {
		roles = stringsTerm(c.Roles)
	}
	return ast.ObjectTerm(
		item("type", stringTerm(c.Type)),
		item("id", stringTerm(c.ID)),
		item("anonymous", ast.InternedTerm(c.Anonymous)),
		item("roles", roles),
		item("credential", stringTerm(c.Credential)),
	)
}

func optionalScopeTerm(s *protocol.Scope) *ast.Term {
	if s == nil {
		return ast.InternedNullTerm
	}
	return scopeTerm(s)
}

func scopeTerm(s *protocol.Scope) *ast.Term {
	obj := ast.NewObject(item("includeWorkingDocs", ast.InternedTerm(s.IncludeWorkingDocs)))
	if len(s.Projects) > 0 {
		obj.Insert(stringTerm("projects"), stringsTerm(s.Projects))
	}
	if len(s.Paths) > 0 {
		obj.Insert(stringTerm("paths"), stringsTerm(s.Paths))
	}
	if s.Version != "" {
		obj.Insert(stringTerm("version"), stringTerm(s.Version))
	}
	return ast.NewTerm(obj)
}

func pageTerm(p *Page) *ast.Term {
	obj := ast.NewObject()
	if p.Path != "" {
		obj.Insert(stringTerm("path"), stringTerm(p.Path))
	}
	if p.URL != "" {
		obj.Insert(stringTerm("url"), stringTerm(p.URL))
	}
	if p.Version != "" {
		obj.Insert(stringTerm("version"), stringTerm(p.Version))
	}
	return ast.NewTerm(obj)
}

func stringsTerm(ss []string) *ast.Term {
	terms := make([]*ast.Term, len(ss))
	for i, s := range ss {
		terms[i] = stringTerm(s)
	}
	return ast.ArrayTerm(terms...)
}

// Tags of the canonical form: every value is a tag, then its content.
// Strings and lists are length-prefixed, so no two different inputs write
// the same bytes.
const (
	tagAbsent byte = iota
	tagNull
	tagFalse
	tagTrue
	tagString
	tagList
	tagObject
)

// appendKey appends the canonical form of in: two inputs write the same
// bytes exactly when their JSON encodings are equal.
func (in *Input) appendKey(b []byte) []byte {
	b = appendString(b, in.Endpoint)
	b = appendString(b, in.Tool)
	b = appendString(b, in.Action)
	b = appendString(b, in.SiteMode)
	b = appendString(b, in.Caller.Type)
	b = appendString(b, in.Caller.ID)
	b = appendBool(b, in.Caller.Anonymous)
	if in.Caller.Roles == nil {
		b = append(b, tagNull)
	} else {
		b = appendList(b, in.Caller.Roles)
	}
	b = appendString(b, in.Caller.Credential)
	if in.Scope == nil {
		b = append(b, tagNull)
	} else {
		b = appendScope(b, in.Scope)
	}
	b = appendOmitEmptyList(b, in.Pages)
	if in.Page == nil {
		b = append(b, tagAbsent)
	} else {
		b = append(b, tagObject)
		b = appendOmitEmptyString(b, in.Page.Path)
		b = appendOmitEmptyString(b, in.Page.URL)
		b = appendOmitEmptyString(b, in.Page.Version)
	}
	if in.Session == nil {
		return append(b, tagAbsent)
	}
	return appendScope(append(b, tagObject), &in.Session.Scope)
}

func appendScope(b []byte, s *protocol.Scope) []byte {
	b = append(b, tagObject)
	b = appendOmitEmptyList(b, s.Projects)
	b = appendOmitEmptyList(b, s.Paths)
	b = appendOmitEmptyString(b, s.Version)
	return appendBool(b, s.IncludeWorkingDocs)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(append(b, tagString), uint64(len(s)))
	return append(b, s...)
}

func appendOmitEmptyString(b []byte, s string) []byte {
	if s == "" {
		return append(b, tagAbsent)
	}
	return appendString(b, s)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, tagTrue)
	}
	return append(b, tagFalse)
}

func appendList(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(append(b, tagList), uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

func appendOmitEmptyList(b []byte, ss []string) []byte {
	if len(ss) == 0 {
		return append(b, tagAbsent)
	}
	return appendList(b, ss)
}
