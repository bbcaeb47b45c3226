#!/usr/bin/env bash
# Smoke test from outside: build the binary and start it with the repo's
# Caddyfile by the README's first command (Quick start), as written, and run
# the README's curl flows against it. Every wait is bounded; the server is
# stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/readme_lib.sh
# The addresses the binary will listen on, from the variables it reads
# (WIKIGATE_LISTEN, or its _HOST and _PORT parts; the same for the
# development backends) with its defaults. Refuse to start if something
# already answers there, or the checks below would test that instead.
addr() {
	local whole=$1 host=$1_HOST port=$1_PORT
	if [ -n "${!whole:-}" ]; then echo "${!whole}"; else echo "${!host:-${2%:*}}:${!port:-${2##*:}}"; fi
}
LISTEN=$(addr WIKIGATE_LISTEN 127.0.0.1:8080)
GATE="http://$LISTEN"
readme_free "$LISTEN" "$(addr WIKIGATE_MEILI_DEV 127.0.0.1:7700)" "$(addr WIKIGATE_RAGFLOW_DEV 127.0.0.1:9380)"
curl() { command curl --max-time 30 "$@"; }
readme_scratch
data=$WIKIGATE_DATA_DIR
# The README's first command: "<build> && <run>".
first=$(readme_section README.md "Quick start" | readme_sh_blocks | head -1)
build=${first%% && *}
run=${first#* && }
case "$first" in *" && ./wikigate run "*) ;; *) echo "FAIL: the README's first command is not '<build> && ./wikigate run …': $first" >&2; exit 1 ;; esac
bash -c "$build"
start() {
	bash -c "exec $run" >>"$work/server.log" 2>&1 &
	pid=$!
	readme_wait_healthz "$LISTEN" $pid "$work/server.log"
}
stop() { kill $pid 2>/dev/null; wait $pid 2>/dev/null || true; }
trap 'stop; rm -rf "$work"' EXIT
start
# expect NAME STATUS PATTERN -- curl args...
expect() {
	local name=$1 want=$2 pattern=$3; shift 4
	local out status
	out=$(curl -sS -w '\n%{http_code}' "$@")
	status=${out##*$'\n'}
	body=${out%$'\n'*}
	if [ "$status" != "$want" ] || ! grep -q -- "$pattern" <<<"$body"; then
		echo "FAIL $name: got $status, want $want matching '$pattern': $body" >&2
		fail=1
	else
		echo "ok   $name ($status)"
	fi
}
TOKEN=$(./wikigate token --agent kunora-coding-agent 2>/dev/null)
expect healthz 200 '"revision"' -- "$GATE/healthz"
expect search 200 'publish/system/components/kunora-kgent/' -- "$GATE/agent/tools/search" \
	-H "Authorization: Bearer $TOKEN" -d '{"question":"agent memory"}'
if curl -sS "$GATE/agent/tools/search" -H "Authorization: Bearer $TOKEN" -d '{"question":"agent memory","limit":50}' | grep -q 'kunora-kgent-extras'; then
	echo "FAIL search leaked the -extras prefix trap" >&2; fail=1
fi
expect get_page 200 '"content"' -- "$GATE/agent/tools/get_page" \
	-H "Authorization: Bearer $TOKEN" -d '{"path":"publish/system/components/kunora-kgent/index.md"}'
expect forbidden_scope 403 '"forbidden_scope"' -- "$GATE/agent/tools/search" \
	-H "Authorization: Bearer $TOKEN" -d '{"question":"agent memory","scope":{"projects":["kunora-gateway"]}}'
expect unauthorized 401 '"unauthorized"' -- "$GATE/agent/tools/search" -d '{"question":"agent memory"}'
expect invalid_request 400 '"invalid_request"' -- "$GATE/agent/tools/get_page" \
	-H "Authorization: Bearer $TOKEN" -d '{"path":"publish/../etc/passwd"}'
expect human_ask 200 '"citations":\[{' -- "$GATE/answer/ask" \
	-d '{"question":"How do I configure agent memory?","page":{"url":"/system/components/kunora-kgent/"}}'
expect agent_ask 200 '"chunkId"' -- "$GATE/agent/tools/ask" \
	-H "Authorization: Bearer $TOKEN" -d '{"question":"How do I use Redis as the agent memory store?"}'
expect no_answer 200 '"noAnswerReason":{"code":"no_answer"' -- "$GATE/agent/tools/ask" \
	-H "Authorization: Bearer $TOKEN" -d '{"question":"What is the payroll schedule for contractors?"}'
expect get_context 200 '"tokenEstimate"' -- "$GATE/agent/tools/get_context" \
	-H "Authorization: Bearer $TOKEN" -d '{"question":"agent memory configuration","maxTokens":1500}'
HUMAN=$(./wikigate token --human alice --role wiki-maintainer 2>/dev/null)
expect maintainer_working_docs 200 '"audit"' -- "$GATE/answer/ask" -H "Authorization: Bearer $HUMAN" \
	-d '{"question":"What is planned for agent memory v2?","scope":{"projects":["kunora-kgent"],"includeWorkingDocs":true}}'
expect anonymous_working_docs 403 '"forbidden_scope"' -- "$GATE/answer/ask" \
	-d '{"question":"What is planned for agent memory v2?","scope":{"includeWorkingDocs":true}}'
S=$(curl -sS "$GATE/answer/sessions" -H "Authorization: Bearer $TOKEN" -d '{"question":"How do I configure agent memory?"}')
SID=$(echo "$S" | sed -E 's/.*"sessionId":"([0-9a-f]+)".*/\1/')
STOK=$(echo "$S" | sed -E 's/.*"sessionToken":"([^"]+)".*/\1/')
expect session_turn 200 "\"sessionId\":\"$SID\"" -- "$GATE/answer/sessions/$SID/turns" \
	-H "Authorization: Bearer $TOKEN" -H "X-Session-Token: $STOK" -d '{"question":"How do I use Redis as the memory store?"}'
OTHER=$(./wikigate token --agent docs-maintainer-agent 2>/dev/null)
expect session_forbidden 403 '"session_forbidden"' -- "$GATE/answer/sessions/$SID/turns" \
	-H "Authorization: Bearer $OTHER" -H "X-Session-Token: $STOK" -d '{"question":"and then?"}'
FB='{"eventType":"qa_no_answer","question":"What is the payroll schedule for contractors?","idempotencyKey":"try-1"}'
expect feedback_created 200 '"count":1' -- "$GATE/agent/tools/create_feedback" -H "Authorization: Bearer $TOKEN" -d "$FB"
expect feedback_replayed 200 '"count":1' -- "$GATE/agent/tools/create_feedback" -H "Authorization: Bearer $TOKEN" -d "$FB"
expect improvement_forbidden 403 '"forbidden_tool"' -- "$GATE/agent/tools/create_improvement_task" \
	-H "Authorization: Bearer $TOKEN" -d '{"eventType":"qa_no_answer","question":"payroll?","title":"Document payroll"}'
expect improvement_task 200 '"created":true' -- "$GATE/agent/tools/create_improvement_task" -H "Authorization: Bearer $OTHER" \
	-d '{"eventType":"qa_no_answer","question":"What is the payroll schedule for contractors?","title":"Document the contractor payroll schedule","scope":{"projects":["kunora-kgent"]}}'
# Caddy-layer errors carry the protocol's envelope (handle_errors + wikigate_error)
expect caddy_layer_error 400 '"invalid_request"' -- "$GATE/agent/tools/search" -H "Host: ..." -d '{}'
# max_header_size 32KiB (Caddyfile): a 30 KB header passes, a 40 KB one is Go's 431
hdr() { curl -sS -o /dev/null -w '%{http_code}' "$GATE/healthz" -H "X-Big: $(head -c "$1" /dev/zero | tr '\0' a)"; }
if [ "$(hdr 30000)" = 200 ] && [ "$(hdr 40000)" = 431 ]; then echo "ok   header limit 32 KiB (30 KB: 200, 40 KB: 431)"; else echo "FAIL header limit: 30 KB got $(hdr 30000), 40 KB got $(hdr 40000)" >&2; fail=1; fi
# the admin API is an owner-only unix socket in the data dir; reload and metrics go through it
if [ "$(stat -c %a "$data/admin.sock" 2>/dev/null)" = 600 ]; then echo "ok   admin socket is 0600"; else echo "FAIL admin socket is not an owner-only socket" >&2; fail=1; fi
if ./wikigate reload --config Caddyfile >>"$work/server.log" 2>&1; then echo "ok   reload via the admin socket"; else echo "FAIL reload via the admin socket" >&2; fail=1; fi
metrics=$(curl -sS --unix-socket "$data/admin.sock" http://localhost/metrics || true)
if grep -q '^caddy_wikigate_calls_total' <<<"$metrics"; then
	echo "ok   metrics via the admin socket"
else
	echo "FAIL no gate metrics via the admin socket" >&2; fail=1
fi
stop
start
expect feedback_after_restart 200 '"count":2' -- "$GATE/agent/tools/create_feedback" -H "Authorization: Bearer $TOKEN" \
	-d '{"eventType":"qa_no_answer","question":"What is the payroll schedule for contractors?","idempotencyKey":"try-2"}'
KEY=$(./wikigate key create --agent kunora-coding-agent 2>/dev/null)
expect api_key 200 '"hits"' -- "$GATE/agent/tools/search" -H "X-Agent-Api-Key: $KEY" -d '{"question":"agent memory"}'
if grep -q "$KEY" "$data/api_keys.json"; then echo "FAIL the key store holds the plaintext key" >&2; fail=1; fi
# operator commands beside the running gate: validate opens no store (the
# gate holds the feedback database's lock), doctor finds the backends
# complete, revoke names the key and the gate refuses it within a second
if ./wikigate validate --config Caddyfile >>"$work/server.log" 2>&1; then echo "ok   validate beside the running gate"; else echo "FAIL validate beside the running gate" >&2; fail=1; fi
if ./wikigate doctor --config Caddyfile >"$work/doctor.out" 2>&1; then echo "ok   doctor: $(tail -1 "$work/doctor.out")"; else cat "$work/doctor.out" >&2; echo "FAIL doctor" >&2; fail=1; fi
PREFIX=$(./wikigate key list 2>/dev/null | tail -1 | cut -f1)
used=""
for _ in $(seq 1 50); do
	used=$(./wikigate key list 2>/dev/null | grep "^$PREFIX	" | grep -o 'last_used=[^	]*' || true)
	[ "$used" != "last_used=never" ] && [ -n "$used" ] && break
	sleep 0.1
done
if [ "$used" != "last_used=never" ] && [ -n "$used" ]; then echo "ok   key list shows the key's last use ($used)"; else echo "FAIL key list: $used" >&2; fail=1; fi
if ./wikigate key revoke --prefix "$PREFIX" 2>/dev/null | grep -q "^revoked $PREFIX	agent=kunora-coding-agent"; then echo "ok   key revoke names the key"; else echo "FAIL key revoke output" >&2; fail=1; fi
sleep 1.1 # the gate looks at the key file at most once a second
expect revoked_key 401 '"unauthorized"' -- "$GATE/agent/tools/search" -H "X-Agent-Api-Key: $KEY" -d '{"question":"agent memory"}'
if ./wikigate version | grep -q '^wikigate .* (commit .*)$'; then echo "ok   version names the gate"; else echo "FAIL version" >&2; fail=1; fi
if grep -q "$TOKEN" "$work/server.log"; then echo "FAIL the server log holds a token" >&2; fail=1; fi
exit $fail
