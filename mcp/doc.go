// Package mcp is the gate's Model Context Protocol front door (docs/agents.md,
// "MCP"): the same six agent tools as /agent/tools/*, reached over MCP's
// Streamable HTTP transport, with nothing weaker than the HTTP routes.
//
// The package speaks three protocol revisions through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): 2026-07-28, which is stateless
// (server/discover, every request authorized on its own), and the
// session-based 2025-11-25 and 2025-06-18 (initialize, Mcp-Session-Id).
// It never decides anything itself: who the caller is, which tools it may
// see and what a call returns all come from the gate through [Gate], so
// tools/list and tools/call cannot drift from the HTTP routes' policy.
//
// What this package adds around the SDK, and why:
//   - one JSON-RPC message per POST, checked before anything reaches the
//     SDK or the gate (batches, non-JSON bodies and Mcp-Method/Mcp-Name
//     headers that disagree with the body are refused), because the SDK
//     still accepts batches from clients that send no protocol version;
//   - per-request authentication and the OAuth protected-resource answer
//     (401 + WWW-Authenticate resource_metadata, RFC 9728 metadata), because
//     the SDK's bearer middleware only knows bearer tokens while the gate
//     also accepts API keys and anonymous public readers;
//   - sessions bound to the identity and credential that opened them,
//     capped per caller (past the cap the least recently used idle one is
//     closed, since most clients never DELETE) and closed when the
//     credential expires or is refused, because the SDK only compares an
//     optional user id;
//   - an Origin allow-list (DNS-rebinding protection) in front of the SDK's
//     own loopback Host check;
//   - fast paths (fast.go, fast_session.go) that answer a well-formed
//     tools/call, stateless or on an open session, and a stateless
//     tools/list without the SDK, with the bytes the SDK would write,
//     because through the SDK a call costs ~0.25 ms of CPU against a budget
//     of 25 us over the HTTP route;
//   - wiki pages as resources (wiki://{version}/{path}), each read being a
//     get_page call through the gate (resources.go);
//   - the HTTP routes' standard where the SDK falls short (docs/agents.md "MCP"):
//     strict members in the message and its params (strict.go), refusals
//     as JSON-RPC errors instead of the SDK transport's plain text, a
//     rate-limited call answered 429 and a cancelled one not at all
//     (sdkWriter, cancel.go), and resumable streams that never replay a
//     cancelled call's response (eventstore.go).
//
// The package imports no Caddy code: the gateway implements [Gate] and the
// Caddy module mounts [Handler.ServeHTTP] and [Handler.Metadata].
package mcp
