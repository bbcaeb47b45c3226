package wikigate_test

import data.wikigate

# human_feedback is a person's POST /answer/feedback.
human_feedback(site_mode, caller) := object.union(
	human_ask(site_mode, caller, null),
	{"endpoint": "/answer/feedback", "tool": "create_feedback", "action": "write"},
)

no_anonymous_feedback := json.patch(data.humans, [{"op": "replace", "path": "/feedback/anonymous", "value": false}])

test_anonymous_feedback_accepted_when_data_says_so if {
	d := wikigate.decision with input as human_feedback("public-read", anonymous_human)
	d.allow == true
	d.write == true
	wikigate.tool_decision.allow with input as tool_only(human_feedback("public-read", anonymous_human))
}

test_anonymous_feedback_refused_when_data_says_no if {
	d := wikigate.decision with input as human_feedback("public-read", anonymous_human)
		with data.humans as no_anonymous_feedback
	d.code == "forbidden_tool"
	contains(d.reason, "anonymous feedback is not accepted")
	g := wikigate.tool_decision with input as tool_only(human_feedback("public-read", anonymous_human))
		with data.humans as no_anonymous_feedback
	g.code == "forbidden_tool"
	g.reason == d.reason
}

test_signed_in_feedback_accepted_without_anonymous_feedback if {
	d := wikigate.decision with input as human_feedback("authenticated-read", reader)
		with data.humans as no_anonymous_feedback
	d.allow == true
	d.write == true
}

test_anonymous_feedback_needs_sign_in_in_authenticated_read if {
	d := wikigate.decision with input as human_feedback("authenticated-read", anonymous_human)
	d.code == "unauthorized"
}

# People send feedback on /answer/feedback only: as an agent tool (or over
# MCP) create_feedback stays forbidden to them.
test_people_feedback_only_on_its_route if {
	call := object.union(human_feedback("public-read", reader), {"endpoint": "/agent/tools/create_feedback"})
	d := wikigate.decision with input as call
	d.code == "forbidden_tool"
	g := wikigate.tool_decision with input as tool_only(call)
	g.code == "forbidden_tool"
}

# The no-answer action of an ask says enabled exactly when the feedback
# would be accepted: write_tools names create_feedback only then.
test_ask_write_tools_follow_anonymous_feedback if {
	yes := wikigate.decision with input as human_ask("public-read", anonymous_human, null)
	yes.write_tools == ["create_feedback"]
	no := wikigate.decision with input as human_ask("public-read", anonymous_human, null)
		with data.humans as no_anonymous_feedback
	no.write_tools == []
	signed := wikigate.decision with input as human_ask("public-read", reader, null)
		with data.humans as no_anonymous_feedback
	signed.write_tools == ["create_feedback"]
}

# The tool gate and the decision agree on people's feedback for every
# caller, site mode and setting.
test_feedback_tool_gate_agrees_with_decision if {
	every humans in [data.humans, no_anonymous_feedback] {
		every mode in ["public-read", "authenticated-read"] {
			every caller in [anonymous_human, reader, maintainer] {
				call := human_feedback(mode, caller)
				d := wikigate.decision with input as call with data.humans as humans
				g := wikigate.tool_decision with input as tool_only(call) with data.humans as humans
				g.allow == d.allow
			}
		}
	}
}
