package integration

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPPagesAsResources reads wiki://{version}/{path} through Caddy with
// the Go SDK's client: a page inside kunora-coding-agent's grant comes back
// as Markdown and is audited as get_page under /mcp; a page of another
// project is refused with forbidden_scope, as get_page refuses it; a page
// that does not exist is resource-not-found; ops-readonly-agent, who may
// not read kgent pages, is refused the same page.
func TestMCPPagesAsResources(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{extraOptions: mcpBlock})
	coder := mcpConnect(t, g, agentToken(t, "kunora-coding-agent"), "", nil)
	ctx := t.Context()

	uri := "wiki://main/publish/system/components/kunora-kgent/index.md"
	res, err := coder.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("readable page: %v", err)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "text/markdown" ||
		!strings.Contains(strings.ToLower(res.Contents[0].Text), "kgent") {
		t.Fatalf("readable page: %+v", res.Contents)
	}
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool {
		return l["endpoint"] == "/mcp" && l["tool"] == "get_page" && l["caller_id"] == "kunora-coding-agent"
	})
	if rec["result"] != "ok" || rec["jsonrpc_id"] == nil {
		t.Errorf("read's audit record: %v", rec)
	}

	_, err = coder.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "wiki://main/publish/system/components/kunora-gateway/index.md"})
	if code, data := resourceErr(t, err); code != -32010 || !strings.Contains(data, "forbidden_scope") {
		t.Errorf("page of another project: %v", err)
	}
	_, err = coder.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "wiki://main/publish/system/components/kunora-kgent/no-such-page.md"})
	if code, _ := resourceErr(t, err); code != jsonrpc.CodeInvalidParams { // the SDK's resource-not-found code since v1.7.0
		t.Errorf("missing page: %v", err)
	}

	ops := mcpConnect(t, g, agentToken(t, "ops-readonly-agent"), "2025-11-25", nil)
	_, err = ops.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri})
	if code, data := resourceErr(t, err); code != -32010 || !strings.Contains(data, "forbidden_scope") {
		t.Errorf("kgent page read by ops-readonly-agent: %v", err)
	}
}

func resourceErr(t *testing.T, err error) (int64, string) {
	t.Helper()
	var re *jsonrpc.Error
	if !errors.As(err, &re) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return re.Code, string(re.Data)
}
