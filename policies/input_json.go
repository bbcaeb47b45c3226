package policies

import (
	"github.com/wikigate/wikigate/protocol"
)

// appendJSON appends in's JSON encoding, the Wasm evaluator's input: the
// same document encoding/json writes (json tags and omitempty of Input,
// Caller, SessionInput, Page and protocol.Scope; invalid UTF-8 as U+FFFD),
// without reflection. Like toAST it must change with any field added to
// Input; input_json_test.go compares it with encoding/json on generated
// inputs.
func (in *Input) appendJSON(b []byte) []byte {
	b = append(b, `{"endpoint":`...)
	b = appendJSONString(b, in.Endpoint)
	b = append(b, `,"tool":`...)
	b = appendJSONString(b, in.Tool)
	b = append(b, `,"action":`...)
	b = appendJSONString(b, in.Action)
	b = append(b, `,"site_mode":`...)
	b = appendJSONString(b, in.SiteMode)
	b = append(b, `,"caller":{"type":`...)
	b = appendJSONString(b, in.Caller.Type)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, in.Caller.ID)
	b = append(b, `,"anonymous":`...)
	b = appendJSONBool(b, in.Caller.Anonymous)
	b = append(b, `,"roles":`...)
	b = protocol.AppendJSONStrings(b, in.Caller.Roles)
	b = append(b, `,"credential":`...)
	b = appendJSONString(b, in.Caller.Credential)
	b = append(b, `},"scope":`...)
	if in.Scope == nil {
		b = append(b, "null"...)
	} else {
		b = appendScopeJSON(b, in.Scope)
	}
	if len(in.Pages) > 0 {
		b = append(b, `,"pages":`...)
		b = protocol.AppendJSONStrings(b, in.Pages)
	}
	if in.Page != nil {
		b = append(b, `,"page":`...)
		b = appendPageJSON(b, in.Page)
	}
	if in.Session != nil {
		b = append(b, `,"session":{"scope":`...)
		b = appendScopeJSON(b, &in.Session.Scope)
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendScopeJSON writes protocol.Scope's JSON (projects, paths, version
// omitted when empty; ProjectPaths and Datasets are never encoded).
func appendScopeJSON(b []byte, s *protocol.Scope) []byte {
	b = append(b, '{')
	sep := false
	field := func(name string) {
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
	}
	if len(s.Projects) > 0 {
		field("projects")
		b = protocol.AppendJSONStrings(b, s.Projects)
	}
	if len(s.Paths) > 0 {
		field("paths")
		b = protocol.AppendJSONStrings(b, s.Paths)
	}
	if s.Version != "" {
		field("version")
		b = appendJSONString(b, s.Version)
	}
	field("includeWorkingDocs")
	b = appendJSONBool(b, s.IncludeWorkingDocs)
	return append(b, '}')
}

func appendPageJSON(b []byte, p *Page) []byte {
	b = append(b, '{')
	sep := false
	for _, f := range [...]struct{ name, value string }{{"path", p.Path}, {"url", p.URL}, {"version", p.Version}} {
		if f.value == "" {
			continue
		}
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, f.name...)
		b = append(b, `":`...)
		b = appendJSONString(b, f.value)
	}
	return append(b, '}')
}

func appendJSONBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// appendJSONString writes s as a JSON string, as encoding/json does but
// without its HTML escaping (the decoded value is the same): the one
// string writer the gate's hand-written JSON shares (protocol).
func appendJSONString(b []byte, s string) []byte {
	return protocol.AppendJSONString(b, s, false)
}
