package wikigate

# limits are the rate limits of an allowed call, from data.limits: the
# gateway enforces them after the decision and before the tool, so a
# limited call reaches no backend and uses up no session or idempotency
# key. Each is {name, per, requests, window}: per "caller" is one budget
# for each caller (an identity, or an anonymous reader's address), per
# "anonymous" is one budget all anonymous readers share; window is in
# seconds. A budget is counted under its name, so two calls share one only
# when they get the same name.
limits := array.concat(
	array.concat(caller_minute_limit, anonymous_minute_limit),
	array.concat(sessions_hour_limit, feedback_hour_limit),
)

# limit_class picks the data.limits entry a caller falls under.
limit_class := "agents" if is_agent

limit_class := "anonymous" if {
	is_human
	anonymous
}

limit_class := "humans" if {
	is_human
	not anonymous
}

# Without data.limits (or an entry for the tool) a call has no limit.
per_minute := data.limits.per_minute

per_hour := data.limits.per_hour

# caller_per_minute is the caller's budget for this tool: an agent's own
# entry in agent_overrides, else its class's.
caller_per_minute := n if {
	is_agent
	n := per_minute.agent_overrides[input.caller.id][input.tool]
} else := n if {
	n := per_minute[limit_class][input.tool]
}

caller_minute_limit := [minute_limit("caller", n)] if {
	n := caller_per_minute
} else := []

anonymous_minute_limit := [minute_limit("anonymous", n)] if {
	limit_class == "anonymous"
	n := per_minute.anonymous_total[input.tool]
} else := []

minute_limit(per, n) := {"name": concat("-", [input.tool, "minute"]), "per": per, "requests": n, "window": 60}

# New sessions per caller per hour: a session holds memory (or Redis) for
# its lifetime, so creating them is budgeted apart from asking.
sessions_hour_limit := [{"name": "sessions-hour", "per": "caller", "requests": n, "window": 3600}] if {
	input.endpoint == "/answer/sessions"
	n := per_hour.sessions[limit_class]
} else := []

# Feedback records (both write tools) per caller per hour: each is a store
# write and may open a GitHub issue.
feedback_hour_limit := [{"name": "feedback-hour", "per": "caller", "requests": n, "window": 3600}] if {
	input.action == "write"
	n := per_hour.feedback[limit_class]
} else := []
