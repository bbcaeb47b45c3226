package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/protocol"
)

// Wiki pages are MCP resources too (docs/agents.md, "MCP"):
// wiki://{version}/{path} names a page of one version, e.g.
// wiki://main/publish/kgent/index.md. resources/read reads it through the gate
// as get_page does (the same tool gate, decision, per-page check, backend and
// audit record, tool get_page), so a resource is never more readable than the
// page.
//
// resources/list stays empty: a caller's readable pages are a filter over
// the whole index, not a list the gate keeps, and paging it per caller
// would be a second search API. resources/templates/list names the
// template, search finds the paths, and citations and hits carry them.
var pageTemplate = &mcpsdk.ResourceTemplate{
	URITemplate: "wiki://{version}/{+path}",
	Name:        "wiki-page",
	Title:       "Wiki page",
	Description: "One wiki page as Markdown: version is the wiki version (e.g. main), path the page path from search hits or citations " +
		"(e.g. wiki://main/publish/system/components/kunora-kgent/index.md). Pages outside your scope are refused as get_page refuses them.",
	MIMEType: "text/markdown",
}

// Codes of resources/read errors. A missing page is the SDK's resource
// not found (-32602 since SEP-2164), a malformed URI invalid params, and a
// refusal an implementation-defined server error (JSON-RPC reserves
// -32000..-32099) with the protocol code in data. Not -32003, this
// package's forbidden on HTTP refusals: inside a session the SDK's client
// reads -32003 as "client is closing" and reports a closed connection.
const (
	codeInvalidParams   = -32602
	codeResourceRefused = -32010
)

// readPage is the resources/read handler of pageTemplate.
func (h *Handler) readPage(ctx context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
	ex := h.exchanges.of(req)
	if ex == nil {
		return nil, errNoExchange
	}
	uri := req.Params.URI
	version, path, err := parsePageURI(uri)
	if err != nil {
		return nil, &jsonrpc.Error{Code: codeInvalidParams, Message: err.Error()}
	}
	args := mustJSON(protocol.GetPageRequest{Path: path, Standard: protocol.Standard{Scope: &protocol.Scope{Version: version}}})
	out, err := h.gate.Call(ctx, ex.caller.Principal, "get_page", args, callMeta(req, ex, nil))
	if err != nil {
		return nil, resourceError(uri, err)
	}
	res, err := pageOf(out)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	for _, e := range res.Errors {
		return nil, resourceError(uri, protocol.NewError(e.Code, e.Message))
	}
	if len(res.Pages) != 1 {
		return nil, mcpsdk.ResourceNotFoundError(uri)
	}
	p := res.Pages[0]
	return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{
		URI: uri, MIMEType: pageTemplate.MIMEType, Text: p.Content,
		Meta: mcpsdk.Meta{"title": p.Title, "url": h.pageURI(p.URL), "sourceProject": p.SourceProject, "version": p.Version},
	}}}, nil
}

// pageOf reads get_page's result as the page batch its JSON is (the
// structuredContent a tools/call would carry); a result that is not one
// reads as no page.
func pageOf(out protocol.Result) (protocol.PageResult, error) {
	var res protocol.PageResult
	if out == nil {
		return res, errNoResult
	}
	raw, err := out.AppendStructured(nil)
	if err != nil {
		return res, err
	}
	_ = json.Unmarshal(raw, &res)
	return res, nil
}

// parsePageURI splits wiki://{version}/{path}. The path is the page path
// as get_page takes it; the gate normalizes and checks it.
func parsePageURI(uri string) (version, path string, err error) {
	u, err := url.Parse(uri)
	switch {
	case err != nil || u.Scheme != "wiki" || u.Opaque != "":
		return "", "", errors.New("not a wiki page URI: use wiki://{version}/{path}")
	case u.Host == "" || u.User != nil || u.Port() != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", "", errors.New("a wiki page URI is wiki://{version}/{path}, without user, port, query or fragment")
	case len(u.Path) < 2 || !strings.HasPrefix(u.Path, "/"):
		return "", "", errors.New("a wiki page URI names a page path after the version: wiki://{version}/{path}")
	}
	return u.Host, u.Path[1:], nil
}

// resourceError is a failed read as a JSON-RPC error: not found as the
// SDK says it, a malformed request as invalid params, any other refusal
// or failure with the protocol code in data (forbidden_scope,
// forbidden_tool, backend_unavailable...).
func resourceError(uri string, err error) error {
	pe := protocol.AsError(err)
	code := int64(codeInternal)
	switch pe.Code {
	case protocol.CodeNotFound:
		return mcpsdk.ResourceNotFoundError(uri)
	case protocol.CodeInvalidRequest:
		code = codeInvalidParams
	case protocol.CodeForbiddenScope, protocol.CodeForbiddenTool, protocol.CodeDatasetNotAllowed:
		code = codeResourceRefused
	}
	return &jsonrpc.Error{Code: code, Message: pe.Message, Data: mustJSON(errorData{Code: string(pe.Code)})}
}
