package wikigate_test

import data.wikigate

test_granted_write_allowed if {
	d := wikigate.decision with input as agent_write("kunora-coding-agent", "create_feedback", null)
	d.allow == true
	d.write == true
	d.write_tools == ["create_feedback"]
}

test_maintainer_may_write_improvement_tasks if {
	d := wikigate.decision with input as agent_write("docs-maintainer-agent", "create_improvement_task", null)
	d.write == true
	d.write_tools == ["create_feedback", "create_improvement_task"]
}

test_write_needs_write_tool if {
	agents := json.patch(data.agents, [{"op": "replace", "path": "/kunora-coding-agent/write_tools", "value": []}])
	d := wikigate.decision with input as agent_write("kunora-coding-agent", "create_feedback", null)
		with data.agents as agents
	d.code == "forbidden_tool"
	d.reason == `tool "create_feedback" may not write`
}

test_read_call_does_not_write if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
	d.allow == true
	d.write == false
	d.write_tools == ["create_feedback"]
}

test_read_only_agent_has_no_write_tools if {
	d := wikigate.decision with input as agent_call("ops-readonly-agent", "search", null)
	d.write_tools == []
}

test_human_write_outside_tools_forbidden if {
	call := object.union(human_ask("public-read", reader, null), {"tool": "create_feedback", "action": "write"})
	d := wikigate.decision with input as call
	d.code == "forbidden_tool"
}

test_datasets_checked_before_write if {
	agents := json.patch(data.agents, [{"op": "replace", "path": "/kunora-coding-agent/write_tools", "value": []}])
	d := wikigate.decision with input as agent_write("kunora-coding-agent", "create_feedback", null)
		with data.agents as agents
		with data.catalog.datasets as {}
	d.code == "dataset_not_allowed"
}
