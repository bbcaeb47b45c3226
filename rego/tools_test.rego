package wikigate_test

import data.wikigate

test_agent_tool_not_granted if {
	d := wikigate.decision with input as agent_call("ops-readonly-agent", "ask", null)
	d.allow == false
	d.code == "forbidden_tool"
	d.reason == `tool "ask" is not allowed`
}

test_agent_granted_tools_allowed if {
	every tool in ["search", "ask", "get_page", "get_context"] {
		d := wikigate.decision with input as agent_call("kunora-coding-agent", tool, null)
		d.allow == true
	}
}

test_improvement_task_not_granted_to_coding_agent if {
	d := wikigate.decision with input as agent_write("kunora-coding-agent", "create_improvement_task", null)
	d.code == "forbidden_tool"
}

test_missing_tool_forbidden if {
	call := json.remove(agent_call("kunora-coding-agent", "search", null), ["tool"])
	d := wikigate.decision with input as call
	d.code == "forbidden_tool"
	d.reason == `tool "" is not allowed`
}

test_human_tools_are_ask_and_search if {
	call := object.union(human_ask("public-read", reader, null), {"tool": "get_context"})
	d := wikigate.decision with input as call
	d.code == "forbidden_tool"
}

test_unknown_action_forbidden if {
	call := object.union(agent_call("kunora-coding-agent", "search", null), {"action": "delete"})
	d := wikigate.decision with input as call
	d.code == "forbidden_tool"
	d.reason == "unknown action"
}

test_tool_checked_before_scope if {
	d := wikigate.decision with input as agent_call("ops-readonly-agent", "ask", scope(["kunora-kgent"], [], ""))
	d.code == "forbidden_tool"
}

# People (anonymous public readers included) may search the public docs as
# well as ask: an MCP client without a credential is such a reader.
test_public_reader_may_search if {
	call := object.union(human_ask("public-read", anonymous_human, null), {"tool": "search"})
	d := wikigate.decision with input as call
	d.allow == true
	d.scope.projects == data.humans.default_scope.projects
}
