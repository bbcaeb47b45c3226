# Package wikigate is the security team's default policy for the wikigate
# gateway. The gateway queries data.wikigate.decision once per call; see
# README.md for the input, the decision and the data layout.
package wikigate

# denial names the first failing check in the order of docs/protocol.md
# (Order of checks): identity, tool, scope, dataset, write. Each stage
# collects all of its problems so the caller learns everything wrong at that
# stage at once.
denial := {"code": "unauthorized", "reason": concat("; ", identity_problems)} if {
	identity_problems != set()
} else := {"code": "forbidden_tool", "reason": concat("; ", tool_problems)} if {
	tool_problems != set()
} else := {"code": "forbidden_scope", "reason": concat("; ", scope_problems)} if {
	scope_problems != set()
} else := {"code": "dataset_not_allowed", "reason": concat("; ", dataset_problems)} if {
	dataset_problems != set()
} else := {"code": "forbidden_tool", "reason": concat("; ", write_problems)} if {
	write_problems != set()
}

# decision is a denial, or an allow that carries positive evidence (a granted
# tool and at least one dataset). Anything else leaves it undefined, which the
# gateway treats as a deny.
decision := {"allow": false, "code": d.code, "reason": d.reason} if {
	d := denial
} else := {
	"allow": true,
	"scope": effective_scope,
	"project_paths": project_paths,
	"datasets": datasets,
	"index": data.catalog.index,
	"write": may_write,
	"write_tools": caller_write_tools,
	"pages": readable_pages,
	"limits": limits,
} if {
	requested_tool in caller_tools
	datasets != []
}
