package wikigate

# tool_decision is the protocol's checks that come before the request body
# (§6.2: token, identity, policy, tool), decided from who calls and which
# tool alone. The gateway asks it before reading the body, so a caller that
# may not use a tool gets forbidden_tool (or unauthorized) whatever it sent,
# and cannot probe the body schema of a tool it may not use. It reads the
# same identity and tool checks as decision, which asks them first too, so
# the two cannot disagree. An allow here only lets the gateway read the
# body; the call itself is decided by decision.
tool_decision := {"allow": false, "code": "unauthorized", "reason": concat("; ", identity_problems)} if {
	identity_problems != set()
} else := {"allow": false, "code": "forbidden_tool", "reason": concat("; ", tool_problems)} if {
	tool_problems != set()
} else := {"allow": true} if {
	requested_tool in caller_tools
}
