package wikigate_test

import data.wikigate

# tool_only is a call as the gateway asks tool_decision: no scope, page or
# pages, since the body is not read yet.
tool_only(call) := json.remove(call, ["scope"])

test_tool_gate_allows_a_granted_tool if {
	d := wikigate.tool_decision with input as tool_only(agent_call("kunora-coding-agent", "search", null))
	d == {"allow": true}
}

test_tool_gate_refuses_an_ungranted_tool if {
	d := wikigate.tool_decision with input as tool_only(agent_call("ops-readonly-agent", "ask", null))
	d.allow == false
	d.code == "forbidden_tool"
	d.reason == `tool "ask" is not allowed`
}

test_tool_gate_refuses_an_unknown_agent if {
	d := wikigate.tool_decision with input as tool_only(agent_call("nobody", "search", null))
	d.code == "unauthorized"
}

test_tool_gate_asks_sign_in_first if {
	d := wikigate.tool_decision with input as tool_only(human_ask("authenticated-read", anonymous_human, null))
	d.code == "unauthorized"
}

test_tool_gate_lets_anonymous_ask_in_public_read if {
	d := wikigate.tool_decision with input as tool_only(human_ask("public-read", anonymous_human, null))
	d.allow == true
}

test_tool_gate_refuses_humans_other_tools if {
	call := object.union(tool_only(human_ask("public-read", reader, null)), {"tool": "get_context"})
	d := wikigate.tool_decision with input as call
	d.code == "forbidden_tool"
}

test_tool_gate_refuses_an_unknown_action if {
	call := object.union(tool_only(agent_call("kunora-coding-agent", "search", null)), {"action": "delete"})
	d := wikigate.tool_decision with input as call
	d.code == "forbidden_tool"
}

# The write permission is decided with the scope, after it (§6.2), so the
# tool gate lets a granted write tool through to the body.
test_tool_gate_leaves_write_permission_to_the_decision if {
	agents := json.patch(data.agents, [{"op": "replace", "path": "/kunora-coding-agent/write_tools", "value": []}])
	d := wikigate.tool_decision with input as tool_only(agent_write("kunora-coding-agent", "create_feedback", null))
		with data.agents as agents
	d.allow == true
}

# The gate and the decision agree on every agent and tool of the sample
# data: the gate denies exactly when the decision denies at identity or tool.
test_tool_gate_agrees_with_decision if {
	every id, _ in data.agents {
		every tool in ["search", "ask", "get_page", "get_context", "create_feedback", "create_improvement_task", "nope"] {
			gate_agrees(agent_call(id, tool, null))
		}
	}
	gate_agrees(agent_call("nobody", "search", null))
}

gate_agrees(call) if {
	gate := wikigate.tool_decision with input as tool_only(call)
	full := wikigate.decision with input as call
	gate.allow == false
	full.code == gate.code
	full.reason == gate.reason
}

gate_agrees(call) if {
	gate := wikigate.tool_decision with input as tool_only(call)
	full := wikigate.decision with input as call
	gate.allow == true
	not object.get(full, "code", "") in {"unauthorized", "forbidden_tool"}
}
