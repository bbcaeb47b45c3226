package mcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPagesAsResources reads wiki://{version}/{path} on the stateless and
// a session revision: a readable page comes back as Markdown through the
// gate's get_page (one gate call each, so one audit record), a page
// outside the scope is a forbidden error naming forbidden_scope, a missing
// page is resource-not-found, and a malformed URI never reaches the gate.
func TestPagesAsResources(t *testing.T) {
	for _, revision := range []string{"", "2025-11-25"} {
		t.Run("revision "+revision, func(t *testing.T) {
			g := newFakeGate()
			_, srv := server(t, g, Config{})
			cs := connect(t, srv, "agent:coder", revision, nil)
			ctx := ctxT(t)

			res, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "wiki://main/publish/kgent/memory.md"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "Use Redis.") ||
				res.Contents[0].MIMEType != "text/markdown" || res.Contents[0].URI != "wiki://main/publish/kgent/memory.md" {
				t.Fatalf("readable page: %+v", res.Contents)
			}
			if g.calls.Load() != 1 || (revision != "" && g.lastMeta().SessionID == "") {
				t.Errorf("gate calls %d, meta %+v: want one get_page with the session", g.calls.Load(), g.lastMeta())
			}

			_, err = cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "wiki://main/publish/secret/plans.md"})
			if code, data := clientRPCError(t, err); code != codeResourceRefused || !strings.Contains(data, "forbidden_scope") {
				t.Errorf("page outside the scope: %v", err)
			}
			_, err = cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "wiki://main/publish/kgent/nope.md"})
			if code, _ := clientRPCError(t, err); code != jsonrpc.CodeInvalidParams { // the SDK's resource-not-found code since v1.7.0
				t.Errorf("missing page: %v", err)
			}
			_, err = cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "wiki://v2/publish/kgent/memory.md"})
			if code, _ := clientRPCError(t, err); code != jsonrpc.CodeInvalidParams { // the SDK's resource-not-found code since v1.7.0
				t.Errorf("page of another version: %v", err)
			}
			before := g.calls.Load()
			for _, uri := range []string{"wiki://main/", "wiki://main/x.md?q=1", "file:///etc/passwd", "wiki:main/x.md"} {
				if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri}); err == nil {
					t.Errorf("%s was read", uri)
				}
			}
			if g.calls.Load() != before {
				t.Errorf("malformed URIs reached the gate")
			}

			list, err := cs.ListResources(ctx, nil)
			if err != nil || len(list.Resources) != 0 {
				t.Errorf("resources/list: %v %+v, want empty", err, list)
			}
			tmpl, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "wiki://{version}/{+path}" {
				t.Errorf("resources/templates/list: %v %+v", err, tmpl)
			}
		})
	}
}

// TestResourceReadNeedsTheTool: a caller without get_page cannot read a
// page as a resource either.
func TestResourceReadNeedsTheTool(t *testing.T) {
	g := newFakeGate()
	g.setGrants("coder", "search")
	_, srv := server(t, g, Config{})
	cs := connect(t, srv, "agent:coder", "", nil)
	_, err := cs.ReadResource(ctxT(t), &mcpsdk.ReadResourceParams{URI: "wiki://main/publish/kgent/memory.md"})
	if code, data := clientRPCError(t, err); code != codeResourceRefused || !strings.Contains(data, "forbidden_tool") {
		t.Errorf("read without get_page: %v", err)
	}
}

func clientRPCError(t *testing.T, err error) (int64, string) {
	t.Helper()
	var re *jsonrpc.Error
	if !errors.As(err, &re) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return re.Code, string(re.Data)
}

func TestParsePageURI(t *testing.T) {
	v, p, err := parsePageURI("wiki://main/publish/a%20b/index.md")
	if err != nil || v != "main" || p != "publish/a b/index.md" {
		t.Errorf("got %q %q %v", v, p, err)
	}
	for _, bad := range []string{"wiki://main", "wiki://main/", "wiki://u@main/x", "wiki://main:1/x", "wiki://main/x#f", "http://main/x", "wiki:x"} {
		if _, _, err := parsePageURI(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
