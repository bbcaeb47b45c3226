package wikigate_test

import data.wikigate

limit_named(d, name, per) := l if {
	some l in d.limits
	l.name == name
	l.per == per
}

test_agent_gets_its_class_limit_per_tool if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", null)
	limit_named(d, "search-minute", "caller") == {"name": "search-minute", "per": "caller", "requests": 1200, "window": 60}
	count(d.limits) == 1
}

test_agent_override_wins if {
	d := wikigate.decision with input as agent_call("ops-readonly-agent", "search", null)
	limit_named(d, "search-minute", "caller").requests == 600
}

test_signed_in_human_has_no_shared_anonymous_budget if {
	d := wikigate.decision with input as human_ask("public-read", reader, null)
	limit_named(d, "ask-minute", "caller").requests == 60
	count([l | some l in d.limits; l.requests]) == 1
}

test_anonymous_gets_address_and_global_budgets if {
	d := wikigate.decision with input as human_ask("public-read", anonymous_human, null)
	limit_named(d, "ask-minute", "caller").requests == 30
	limit_named(d, "ask-minute", "anonymous").requests == 600
}

test_session_create_adds_hourly_budget if {
	call := object.union(human_ask("public-read", anonymous_human, null), {"endpoint": "/answer/sessions"})
	d := wikigate.decision with input as call
	limit_named(d, "sessions-hour", "caller") == {"name": "sessions-hour", "per": "caller", "requests": 30, "window": 3600}
}

test_feedback_write_adds_hourly_budget if {
	d := wikigate.decision with input as agent_write("docs-maintainer-agent", "create_improvement_task", null)
	limit_named(d, "feedback-hour", "caller").requests == 1200
	limit_named(d, "create_improvement_task-minute", "caller").requests == 60
}

test_no_limits_data_means_no_limits if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", null)
		with data.limits as {}
	d.allow == true
	d.limits == []
}

test_tool_without_entry_is_unlimited if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.limits as {"per_minute": {"agents": {"search": 5}}}
	d.limits == []
}

test_deny_carries_no_limits if {
	d := wikigate.decision with input as agent_call("ops-readonly-agent", "ask", null)
	d.allow == false
	not d.limits
}

test_ask_carries_the_class_token_budgets if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
	limit_named(d, "tokens-hour", "caller") == {"name": "tokens-hour", "per": "caller", "tokens": data.limits.tokens.agents.hour, "window": 3600}
	limit_named(d, "tokens-day", "caller") == {"name": "tokens-day", "per": "caller", "tokens": data.limits.tokens.agents.day, "window": 86400}
}

test_anonymous_reader_has_its_own_token_budget if {
	d := wikigate.decision with input as human_ask("public-read", anonymous_human, null)
	limit_named(d, "tokens-hour", "caller").tokens == data.limits.tokens.anonymous.hour
}

test_agent_token_override_replaces_its_class if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.limits.tokens.agent_overrides as {"kunora-coding-agent": {"minute": 500}}
	[l | some l in d.limits; l.tokens] == [{"name": "tokens-minute", "per": "caller", "tokens": 500, "window": 60}]
}

test_tools_that_do_not_generate_have_no_token_budget if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", null)
	[l | some l in d.limits; l.tokens] == []
}

test_no_token_data_means_no_token_budget if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.limits as {"per_minute": {"agents": {"ask": 5}}}
	d.limits == [{"name": "ask-minute", "per": "caller", "requests": 5, "window": 60}]
}
