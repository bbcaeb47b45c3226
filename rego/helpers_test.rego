# Shared fixtures for the policy tests: callers and request inputs shaped
# like the gateway's policies.Input.
package wikigate_test

kgent := "publish/system/components/kunora-kgent"

kgent_extras := "publish/system/components/kunora-kgent-extras"

gateway := "publish/system/components/kunora-gateway"

ops := "publish/operations"

kgent_main_approved := "d092f80af64f8e5e119cee1082c471b4"

kgent_main_working := "32a7ab278e7c1b4897cce0b41a3c415f"

kgent_v1_approved := "c87a9f460463eb0f13d182441f32c32d"

gateway_main_approved := "3d6bf633a5bee58ca807c73fec2b5593"

ops_main_approved := "d06408b607f9ccc5443901ca42ee7da3"

agent(id) := {"type": "agent", "id": id, "anonymous": false, "roles": null, "credential": "jwt"}

anonymous_human := {"type": "human", "id": "", "anonymous": true, "roles": null, "credential": "anonymous"}

reader := {"type": "human", "id": "bob", "anonymous": false, "roles": ["reader"], "credential": "sso"}

maintainer := {"type": "human", "id": "alice", "anonymous": false, "roles": ["wiki-maintainer"], "credential": "sso"}

# scope builds a requested scope the way the gateway serializes one.
scope(projects, paths, version) := {"projects": projects, "paths": paths, "version": version, "includeWorkingDocs": false}

working_scope(projects, paths, version) := object.union(scope(projects, paths, version), {"includeWorkingDocs": true})

# agent_call is an agent's read call of tool with a requested scope (null for none).
agent_call(id, tool, requested) := {
	"endpoint": concat("", ["/agent/tools/", tool]),
	"tool": tool,
	"action": "read",
	"site_mode": "public-read",
	"caller": agent(id),
	"scope": requested,
}

agent_write(id, tool, requested) := object.union(agent_call(id, tool, requested), {"action": "write"})

# human_ask is a human's /answer/ask call in a site mode.
human_ask(site_mode, caller, requested) := {
	"endpoint": "/answer/ask",
	"tool": "ask",
	"action": "read",
	"site_mode": site_mode,
	"caller": caller,
	"scope": requested,
}

human_ask_on_page(caller, requested, page) := object.union(
	human_ask("public-read", caller, requested),
	{"page": {"path": page}},
)

dataset_ids(d) := {x.id | some x in d.datasets}
