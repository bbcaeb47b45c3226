#!/usr/bin/env bash
# Tries docs/security.md's shell blocks as written: the built binary
# (WIKIGATE_BIN, else built here, put on PATH as `wikigate`) runs the
# default Caddyfile on non-default ports with its own data directory, its
# decisions logged to decisions.log (`decision_log`, "Decision logs") and
# its audit hash-chained to audit.log (`wikigate_audit_file` with
# `anchor_interval`, "Audit"). An agent makes a few calls, one of them
# denied; then the blocks run in one shell in a scratch folder (the repo's
# files linked in, so nothing is left in the repo):
#   "Editing and testing the policy": policy test rego
#   "Bundles": policy build, plain, ES256-signed (team-private.pem made
#     here with openssl) and HS256-signed (BUNDLE_SECRET set here)
#   "Replay and explain": policy replay and policy diff against ./rego-new,
#     a copy of rego/ where kunora-coding-agent loses get_context and gains
#     the write tool create_improvement_task (the flips the comments show);
#     policy explain of the denied call, by request id and by --input
#   "Audit": audit verify, plain, --heads-from the gate's log, --head
# What a page writes as a placeholder is filled in here, before the block
# runs: `[--option value]` runs with the option, /var/log/wikigate is the
# scratch log folder, the example request id is the denied call's, the
# example head (`9c1f…:1843:51e5ce66…`) is the head audit verify printed.
# Not here: "Hostile-client check" (go run ./scripts/hostile floods the
# gate and holds slow bodies): scripts/readme_checks.sh runs it against a
# gate of its own.
# Every wait is bounded; the server stops on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. scripts/readme_lib.sh
readme_ports 29100
readme_scratch
readme_bin
readme_root samplewiki
cp -r rego "$work/root/rego" # a copy: the policy loader does not follow a linked folder
export WIKIGATE_DATA_DIR="$work/root/data" WIKIGATE_ADMIN="unix/$work/admin.sock|0600"
mkdir -p "$work/root/data" "$work/log" "$work/path"
ln -s "$bin" "$work/path/wikigate"
export PATH="$work/path:$PATH"

# The default Caddyfile with the two logs the page's examples read.
logs="	log decisions {
		output file $work/log/decisions.log
		include http.handlers.wikigate.decisions
	}
	log audit {
		output wikigate_audit_file $work/log/audit.log {
			anchor_interval 1s
		}
		include http.handlers.wikigate.audit
	}
	log default {
		output stderr
		exclude http.handlers.wikigate.audit http.handlers.wikigate.decisions
	}"
awk -v logs="$logs" '{print} /^\tgrace_period /{print logs} /^\t\tpolicy_dir rego$/{print "\t\tpolicy {\n\t\t\tdecision_log\n\t\t}"}' Caddyfile >"$work/root/Caddyfile"
grep -q decision_log "$work/root/Caddyfile" || { echo "FAIL: Caddyfile has no 'policy_dir rego' line to add decision_log after" >&2; exit 1; }
(cd "$work/root" && exec "$bin" run --config Caddyfile) >"$work/log/process.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT # || true: set -e would end the trap before rm when the gate already exited
readme_wait_healthz "$WIKIGATE_LISTEN" $pid "$work/log/process.log"

# An agent's calls: two allowed (one get_context), one denied (an unknown agent).
TOKEN=$("$bin" token --agent kunora-coding-agent 2>/dev/null)
call() { curl -sS --max-time 30 -D "$work/headers" -o /dev/null -w '%{http_code}' "http://$WIKIGATE_LISTEN$1" -H "Authorization: Bearer $2" -d "$3"; }
has "an allowed search" "$(call /agent/tools/search "$TOKEN" '{"question":"agent memory"}')" 200
has "an allowed get_context" "$(call /agent/tools/get_context "$TOKEN" '{"question":"How do I configure agent memory?"}')" 200
stranger=$("$bin" token --agent no-such-agent 2>/dev/null)
has "a denied call" "$(call /agent/tools/search "$stranger" '{"question":"agent memory"}')" 40
denied=$(tr -d '\r' <"$work/headers" | awk -F': ' 'tolower($1)=="x-request-id"{print $2}')
[ -n "$denied" ] || { echo "FAIL: the denied call has no X-Request-Id" >&2; exit 1; }
for _ in $(seq 1 50); do # events and the anchor are written off the request path
	grep -qF "$denied" "$work/log/decisions.log" 2>/dev/null && grep -q 'audit chain head' "$work/log/process.log" && break
	sleep 0.1
done
grep -F "\"decision_id\":\"$denied\"" "$work/log/decisions.log" | head -1 >"$work/root/call.json"
[ -s "$work/root/call.json" ] || { echo "FAIL: decisions.log has no decision event for $denied" >&2; cat "$work/log/process.log"; exit 1; }

cd "$work/root"
cp "$work/log/decisions.log" decisions.log
cp -r "$repo/rego" rego-new
sed -i -e '5s/"get_context", "create_feedback"\]/"create_feedback", "create_improvement_task"]/' \
	-e '6s/"write_tools": \["create_feedback"\]/"write_tools": ["create_feedback", "create_improvement_task"]/' rego-new/data.json
grep -q '"create_feedback", "create_improvement_task"' <(sed -n 5,6p rego-new/data.json) || { echo "FAIL: rego/data.json no longer lists kunora-coding-agent's tools on lines 5-6" >&2; exit 1; }
openssl ecparam -name prime256v1 -genkey -noout -out team-private.pem 2>/dev/null
export BUNDLE_SECRET=bundle-secret-for-readme-security-0123456789

page=docs/security.md
# is NAME GOT WANT: GOT must equal WANT (an exit code), as has and lacks do.
is() {
	if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: got $2, want $3" >&2; fail=1; fi
}
# run TITLE [FILTER [SET]]: the ```sh blocks of section TITLE,
# placeholders filled in by FILTER (sed), in one shell (`set -e` unless SET
# says otherwise); its output and exit code in $out, $rc.
run() {
	local block
	block=$(readme_section "$repo/$page" "$1" | readme_sh_blocks | sed -E -e 's/ \[(--[^]]*)\]/ \1/g' -e "s#/var/log/wikigate#$work/log#g" ${2:+-e "$2"})
	[ -n "$block" ] || { echo "FAIL: $page '$1' has no shell block" >&2; exit 1; }
	echo "== $page '$1'"
	rc=0
	out=$(timeout 120 bash -c "${3:-set -e}; set -x"$'\n'"$block" 2>&1) || rc=$?
	echo "$out"
}

run "Editing and testing the policy"
is "policy test passes" "$rc" 0
has "policy test reports its tests" "$out" "PASS:"

run "Bundles"
is "policy build ran, three times" "$rc" 0
has "the bundle is written" "$(ls)" bundle.tar.gz
has "the bundle's revision" "$out" "wrote bundle.tar.gz: revision 2026-05-01.1"
has "signed ES256" "$out" "signed ES256"
has "signed HS256" "$out" "signed HS256"

# replay and diff exit 1 on what they find (the page says so): no set -e.
run "Replay and explain" "s/61dc841ca74c7d769b5bcb1cb8923775/$denied/" "set +e"
is "the last command, explain, passes" "$rc" 0
has "replay fails on the flip" "$out" "Error: the candidate policy changes decisions it must not change silently"
has "diff fails on the widening" "$out" "Error: the candidate policy widens access"
lacks "no other error" "$(grep -v -e 'must not change silently' -e 'widens access' <<<"$out")" "Error:"
has "replay finds the allow→deny" "$out" "allow→deny"
has "replay names the caller and tool" "$out" "caller=agent:kunora-coding-agent"
has "diff names the widening" "$out" "gains write tool create_improvement_task"
has "explain by request id: the denial" "$out" "decision: deny"
has "explain names the rules that held" "$out" "rules that held:"
has "explain names the code" "$out" "code: unauthorized"

head=$("$bin" audit verify "$work/log/audit.log" 2>&1 | sed -nE 's/^head stream ([0-9a-f]+) seq ([0-9]+) sha256 ([0-9a-f]{64}) .*/\1:\2:\3/p' | head -1) || true
[ -n "$head" ] || { echo "FAIL: audit verify printed no stream:seq:sha256 head" >&2; "$bin" audit verify "$work/log/audit.log"; exit 1; }
run "Audit" "s/9c1f0e2a4b6d8f10:1843:51e5ce66…/$head/"
is "audit verify passes, three times" "$rc" 0
has "audit verify says ok" "$out" "ok: "
has "the published head holds" "$out" "anchored: stream"
exit $fail
