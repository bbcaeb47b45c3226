package wikigate

# Identity (docs/protocol.md, Order of checks: credential and tool): who is
# calling and what the security team's data grants them. Token claims
# identify; only data.agents and data.humans grant.

# Rules that hold for one kind of caller only test input.caller.type
# themselves rather than through is_agent or is_human: OPA's rule index can
# then skip the other kind's rules without evaluating them, which a rule
# reference cannot give it.
is_agent if input.caller.type == "agent"

is_human if input.caller.type == "human"

# agent is the caller's entry in data.agents; undefined for an unknown or
# disabled agent, which makes every later check fail closed.
agent := a if {
	input.caller.type == "agent"
	a := data.agents[input.caller.id]
	not a.disabled
}

# A human without a subject is anonymous whatever else the input says.
anonymous if input.caller.anonymous == true

anonymous if input.caller.credential == "anonymous"

anonymous if input.caller.id == ""

anonymous if not input.caller.id

default is_maintainer := false

is_maintainer if {
	is_human
	not anonymous
	some role in input.caller.roles
	role in data.humans.maintainer_roles
}

site_modes := {"public-read", "authenticated-read"}

identity_problems contains "unknown caller type" if not input.caller.type in {"agent", "human"}

identity_problems contains "unknown agent" if {
	input.caller.type == "agent"
	not agent
}

identity_problems contains "unknown site mode" if {
	input.caller.type == "human"
	not input.site_mode in site_modes
}

identity_problems contains "sign-in required" if {
	input.caller.type == "human"
	input.site_mode == "authenticated-read"
	anonymous
}

# caller_tools and caller_write_tools are what the caller may call and which
# of those calls may write.
caller_tools := object.get(agent, "tools", []) if input.caller.type == "agent"

caller_tools := array.concat(object.get(data.humans, "tools", []), human_feedback_tools) if input.caller.type == "human"

caller_write_tools := object.get(agent, "write_tools", []) if input.caller.type == "agent"

caller_write_tools := [t | some t in object.get(data.humans, "write_tools", []); human_may_write(t)] if input.caller.type == "human"

# People's feedback (POST /answer/feedback): people use create_feedback on
# that route only, never as an agent tool (/agent/tools/*, MCP), where no
# per-caller rate limit stands in front of it. Signed-in people may always
# send it; anonymous readers only when data.humans.feedback.anonymous is
# true. The same rule gives a person's no-answer actions enabled:false when
# their feedback would be refused (write_tools), so the two never disagree.
human_feedback_tools := ["create_feedback"] if {
	input.endpoint == "/answer/feedback"
	human_feedback_accepted
} else := []

default human_feedback_accepted := false

human_feedback_accepted if {
	is_human
	not anonymous
}

human_feedback_accepted if {
	is_human
	anonymous
	data.humans.feedback.anonymous == true
}

human_may_write(t) if t != "create_feedback"

human_may_write("create_feedback") if human_feedback_accepted

tool_problems contains "anonymous feedback is not accepted: sign in to send feedback" if {
	input.endpoint == "/answer/feedback"
	input.caller.type == "human"
	anonymous
	not human_feedback_accepted
}

# requested_tool is never undefined, so a denial reason can always name it.
requested_tool := object.get(input, "tool", "")

tool_problems contains sprintf("tool %q is not allowed", [requested_tool]) if not requested_tool in caller_tools

tool_problems contains "unknown action" if not input.action in {"read", "write"}

write_problems contains sprintf("tool %q may not write", [requested_tool]) if {
	input.action == "write"
	not requested_tool in caller_write_tools
}

default may_write := false

may_write if {
	input.action == "write"
	requested_tool in caller_write_tools
}
