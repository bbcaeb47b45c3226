package mcp

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The JSON-RPC message is read as strictly as the HTTP routes read their
// bodies (docs/protocol.md "Strict JSON"): a member the message's type does not
// define, at the top level or in params, is refused with a message naming
// it, never ignored. The SDK's decoder would ignore it, or (matching names
// without regard to case) read "Arguments" as arguments; a proxy in front
// of the gate would then see a different call than the gate runs.
// Nested objects the protocol leaves open (_meta, capabilities) and the
// tool arguments (decoded strictly by the gate) are not re-checked here.

// envelopeMembers are the members of a JSON-RPC 2.0 message.
var envelopeMembers = map[string]bool{"jsonrpc": true, "id": true, "method": true, "params": true, "result": true, "error": true}

// paramMembers are, per method, the members params may have: the json
// names of the SDK's own params types, so the list cannot drift from what
// the SDK reads. Methods not listed are not checked here: the SDK refuses
// an unknown method with -32601, and undeclared capabilities are -32601
// too (capabilityMiddleware).
var paramMembers = map[string]map[string]bool{
	"initialize":                members[mcpsdk.InitializeParams](),
	"ping":                      members[mcpsdk.PingParams](),
	"tools/list":                members[mcpsdk.ListToolsParams](),
	"tools/call":                members[mcpsdk.CallToolParamsRaw](),
	"resources/list":            members[mcpsdk.ListResourcesParams](),
	"resources/templates/list":  members[mcpsdk.ListResourceTemplatesParams](),
	"resources/read":            members[mcpsdk.ReadResourceParams](),
	"server/discover":           members[mcpsdk.DiscoverParams](),
	"subscriptions/listen":      members[mcpsdk.SubscriptionsListenParams](),
	"notifications/initialized": members[mcpsdk.InitializedParams](),
	"notifications/cancelled":   members[mcpsdk.CancelledParams](),
	"notifications/progress":    members[mcpsdk.ProgressNotificationParams](),
	//lint:ignore SA1019 roots are deprecated from 2026-07-28 on; clients of the earlier revisions still send this notification
	"notifications/roots/list_changed": members[mcpsdk.RootsListChangedParams](),
}

// members lists the json names of T's fields, embedded structs included.
func members[T any]() map[string]bool {
	out := map[string]bool{}
	collectMembers(reflect.TypeFor[T](), out)
	return out
}

func collectMembers(t reflect.Type, out map[string]bool) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || (!f.IsExported() && !f.Anonymous):
		case name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct:
			collectMembers(f.Type, out)
		case name == "":
			out[f.Name] = true
		default:
			out[name] = true
		}
	}
}

// checkMembers refuses a member of an object that allowed does not hold;
// where names the object in the message ("the message", "params").
func checkMembers(raw jsontext.Value, allowed map[string]bool, where string, code int) *refusal {
	var obj map[string]jsontext.Value
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil // not an object: the typed reading that follows says so
	}
	for name := range obj {
		if allowed[name] {
			continue
		}
		return refuse(http.StatusBadRequest, code, unknownMember(name, allowed, where))
	}
	return nil
}

// unknownMember names the refused member, and the member it looks like
// when only case tells them apart.
func unknownMember(name string, allowed map[string]bool, where string) string {
	quoted := fmt.Sprintf("%q", cutName(name))
	for want := range allowed {
		if strings.EqualFold(name, want) {
			return fmt.Sprintf("%s has a member %s: names are case-sensitive, use %q", where, quoted, want)
		}
	}
	return fmt.Sprintf("%s has an unknown member %s", where, quoted)
}

// cutName bounds a client-chosen member name in an error message.
func cutName(name string) string {
	const max = 64
	if len(name) <= max {
		return name
	}
	for i := max; i > 0; i-- {
		if i < len(name) && (name[i]&0xC0) != 0x80 {
			return name[:i] + "…"
		}
	}
	return ""
}
