package wikigate_test

import data.wikigate

test_known_agent_allowed if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", null)
	d.allow == true
}

test_unknown_agent_unauthorized if {
	d := wikigate.decision with input as agent_call("stranger-agent", "search", null)
	d.allow == false
	d.code == "unauthorized"
	d.reason == "unknown agent"
}

test_disabled_agent_unauthorized if {
	agents := json.patch(data.agents, [{"op": "add", "path": "/kunora-coding-agent/disabled", "value": true}])
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", null)
		with data.agents as agents
	d.code == "unauthorized"
	d.reason == "unknown agent"
}

test_agent_without_id_unauthorized if {
	d := wikigate.decision with input as agent_call("", "search", null)
	d.code == "unauthorized"
}

test_unknown_caller_type_unauthorized if {
	call := json.patch(agent_call("kunora-coding-agent", "search", null), [{"op": "replace", "path": "/caller/type", "value": "robot"}])
	d := wikigate.decision with input as call
	d.code == "unauthorized"
	d.reason == "unknown caller type"
}

test_anonymous_human_allowed_in_public_read if {
	d := wikigate.decision with input as human_ask("public-read", anonymous_human, null)
	d.allow == true
}

test_anonymous_human_unauthorized_in_authenticated_read if {
	d := wikigate.decision with input as human_ask("authenticated-read", anonymous_human, null)
	d.code == "unauthorized"
	d.reason == "sign-in required"
}

test_human_without_subject_is_anonymous if {
	caller := object.union(reader, {"id": ""})
	d := wikigate.decision with input as human_ask("authenticated-read", caller, null)
	d.code == "unauthorized"
}

test_signed_in_human_allowed_in_authenticated_read if {
	d := wikigate.decision with input as human_ask("authenticated-read", reader, null)
	d.allow == true
}

test_unknown_site_mode_unauthorized if {
	d := wikigate.decision with input as human_ask("open-to-all", reader, null)
	d.code == "unauthorized"
	d.reason == "unknown site mode"
}

test_identity_checked_before_tool if {
	d := wikigate.decision with input as agent_call("stranger-agent", "delete_everything", null)
	d.code == "unauthorized"
}

test_anonymous_credential_is_anonymous if {
	caller := object.union(reader, {"credential": "anonymous"})
	d := wikigate.decision with input as human_ask("authenticated-read", caller, null)
	d.code == "unauthorized"
}

test_human_without_id_field_is_anonymous if {
	caller := json.remove(reader, ["id"])
	d := wikigate.decision with input as human_ask("authenticated-read", caller, null)
	d.code == "unauthorized"
}
