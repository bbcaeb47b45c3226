package wikigate_test

import data.wikigate

session_turn(call, session_scope) := object.union(call, {"session": {"scope": session_scope}})

kgent_session := scope(["kunora-kgent"], [kgent], "main")

test_turn_without_scope_uses_session_scope if {
	call := session_turn(agent_call("docs-maintainer-agent", "ask", null), kgent_session)
	d := wikigate.decision with input as call
	d.scope == kgent_session
}

test_turn_keeps_session_working_docs if {
	call := session_turn(agent_call("docs-maintainer-agent", "ask", null), working_scope(["kunora-kgent"], [kgent], "main"))
	d := wikigate.decision with input as call
	d.scope.includeWorkingDocs == true
}

test_turn_narrower_than_session_allowed if {
	sub := concat("/", [kgent, "guides"])
	call := session_turn(agent_call("docs-maintainer-agent", "ask", scope([], [sub], "")), kgent_session)
	d := wikigate.decision with input as call
	d.scope == scope(["kunora-kgent"], [sub], "main")
}

test_turn_path_outside_session_forbidden if {
	call := session_turn(agent_call("docs-maintainer-agent", "ask", scope([], [kgent_extras], "")), kgent_session)
	d := wikigate.decision with input as call
	d.code == "forbidden_scope"
	contains(d.reason, "outside the session's scope")
}

# The session's paths, taken for a turn that names another project, are
# not reported as outside the grant: they are, just not for that project.
test_turn_project_outside_session_forbidden if {
	call := session_turn(agent_call("docs-maintainer-agent", "ask", scope(["kunora-gateway"], [], "")), kgent_session)
	d := wikigate.decision with input as call
	d.code == "forbidden_scope"
	d.reason == "the requested scope is outside the session's scope"
}

# A path the turn asks for that no grant covers is still named.
test_turn_ungranted_path_outside_session_named if {
	call := session_turn(agent_call("kunora-coding-agent", "ask", scope([], ["publish/operations"], "")), kgent_session)
	d := wikigate.decision with input as call
	d.code == "forbidden_scope"
	contains(d.reason, "path \"publish/operations\" is not in your grant")
	contains(d.reason, "outside the session's scope")
}

test_turn_version_outside_session_forbidden if {
	call := session_turn(agent_call("docs-maintainer-agent", "ask", scope([], [], "v1.0")), kgent_session)
	d := wikigate.decision with input as call
	d.code == "forbidden_scope"
	d.reason == "the requested scope is outside the session's scope"
}

test_turn_working_docs_outside_session_forbidden if {
	call := session_turn(agent_call("docs-maintainer-agent", "ask", working_scope([], [], "")), kgent_session)
	d := wikigate.decision with input as call
	d.code == "forbidden_scope"
}

test_turn_rechecks_grant if {
	call := session_turn(agent_call("kunora-coding-agent", "ask", null), scope(["kunora-kgent"], [kgent], "v1.0"))
	d := wikigate.decision with input as call
	d.code == "forbidden_scope"
}

test_human_turn_uses_session_not_page_default if {
	call := session_turn(human_ask_on_page(anonymous_human, null, concat("/", [ops, "runbook.md"])), kgent_session)
	d := wikigate.decision with input as call
	d.scope == kgent_session
}
