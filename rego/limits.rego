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
	array.concat(
		array.concat(caller_minute_limit, anonymous_minute_limit),
		array.concat(sessions_hour_limit, feedback_hour_limit),
	),
	token_limits,
)

# limit_class picks the data.limits entry a caller falls under.
limit_class := "agents" if {
	input.caller.type == "agent"
} else := "anonymous" if {
	input.caller.type == "human"
	anonymous
} else := "humans" if {
	input.caller.type == "human"
}

# Without data.limits (or an entry for the tool) a call has no limit.
# Rules read data.limits directly: going through a rule per lookup costs
# an evaluation each time.

# caller_per_minute is the caller's budget for this tool: an agent's own
# entry in agent_overrides, else its class's.
caller_per_minute := n if {
	input.caller.type == "agent"
	n := data.limits.per_minute.agent_overrides[input.caller.id][input.tool]
} else := n if {
	n := data.limits.per_minute[limit_class][input.tool]
}

caller_minute_limit := [{"name": minute_limit_name, "per": "caller", "requests": n, "window": 60}] if {
	n := caller_per_minute
} else := []

anonymous_minute_limit := [{"name": minute_limit_name, "per": "anonymous", "requests": n, "window": 60}] if {
	input.caller.type == "human"
	limit_class == "anonymous"
	n := data.limits.per_minute.anonymous_total[input.tool]
} else := []

minute_limit_name := concat("-", [input.tool, "minute"])

# New sessions per caller per hour: a session holds memory (or Redis) for
# its lifetime, so creating them is budgeted apart from asking.
sessions_hour_limit := [{"name": "sessions-hour", "per": "caller", "requests": n, "window": 3600}] if {
	input.endpoint == "/answer/sessions"
	n := data.limits.per_hour.sessions[limit_class]
} else := []

# Feedback records (both write tools) per caller per hour: each is a store
# write and may open a GitHub issue.
feedback_hour_limit := [{"name": "feedback-hour", "per": "caller", "requests": n, "window": 3600}] if {
	input.action == "write"
	n := data.limits.per_hour.feedback[limit_class]
} else := []

# Token budgets (data.limits.tokens): the generation tokens (input plus
# output) a caller may spend per period on the calls that generate (the
# ask tool: asks, session creates and turns). Each is a limit with
# "tokens" instead of "requests", named tokens-<period>, per caller; the
# gateway checks it before the call and charges it with what the call
# used. An agent's own entry in agent_overrides replaces its class's.
token_limits := [l |
	input.tool == "ask"
	some period, n in caller_token_budgets
	l := {"name": concat("-", ["tokens", period]), "per": "caller", "tokens": n, "window": token_periods[period]}
]

token_periods := {"minute": 60, "hour": 3600, "day": 86400}

caller_token_budgets := b if {
	input.caller.type == "agent"
	b := data.limits.tokens.agent_overrides[input.caller.id]
} else := b if {
	b := data.limits.tokens[limit_class]
} else := {}
