#!/usr/bin/env bash
# Tries the README's Quick start "Other ports" block as written: the built
# binary (WIKIGATE_BIN, else built here) is started by the block, pasted
# unchanged, in a scratch folder (the repo's files linked in, rego/ copied:
# the policy loader reads a real folder), beside a first gate started with
# the Quick start's own command when its default ports are free. The moved
# gate must answer on 8081 with both development backends reachable on 7701
# and 9381, keep its data in data2/, answer a search, and leave the first
# gate working; pasting the block again while it runs must stop at once,
# naming the running gate's pid. Every wait is bounded; the servers stop on
# exit. Needs curl.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. scripts/readme_lib.sh
section=$(readme_section README.md "Quick start")
block=$(awk '/^\*\*Other ports\*\*/{on=1} on' <<<"$section" |
	awk '/^```sh$/{inb=1; next} /^```$/{if (inb) exit} inb')
[ -n "$block" ] || { echo "FAIL: README's Quick start has no 'Other ports' block" >&2; exit 1; }
grep -qF './wikigate run --config Caddyfile' <<<"$block" || { echo "FAIL: the 'Other ports' block no longer starts ./wikigate run: $block" >&2; exit 1; }
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
readme_free 127.0.0.1:8081 127.0.0.1:7701 127.0.0.1:9381

readme_scratch
unset WIKIGATE_DATA_DIR # the block names its own, the first gate the default
readme_bin
readme_root samplewiki Caddyfile
cp -r "$repo/rego" "$work/root/rego"
cd "$work/root"
pids=()
# stop_all: the shells started here and the gates they run (each gate's pid
# is in its data directory's lock file: a shell need not exec its command).
stop_all() {
	local p
	for p in "${pids[@]}" $(cat "$work"/root/data*/wikigate.lock 2>/dev/null); do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap 'stop_all; rm -rf "$work"' EXIT

ok() { echo "ok   $1"; }
bad() { echo "FAIL $1" >&2; fail=1; }
wait_health() { # wait_health ADDR PID LOG: /healthz answers, or the server's log
	readme_wait_healthz "$1" "$2" "$3" 150
}

# The first gate, as the Quick start starts it, when 8080, 7700 and 9380
# are free (on a shared machine they may not be: then the block alone).
first=
if ! in_use 8080 && ! in_use 7700 && ! in_use 9380; then
	(env -u WIKIGATE_LISTEN -u WIKIGATE_DATA_DIR ./wikigate run --config Caddyfile) >"$work/first.log" 2>&1 &
	first=$!
	pids+=("$first")
	wait_health 127.0.0.1:8080 "$first" "$work/first.log"
	ok "a first gate runs on 8080 (the Quick start's command)"
else
	echo "note: 8080, 7700 or 9380 is in use here: the block is tried without a first gate beside it"
fi

# The block, as pasted, in its own shell.
(env -u WIKIGATE_LISTEN -u WIKIGATE_DATA_DIR bash -c "$block") >"$work/moved.log" 2>&1 &
moved=$!
pids+=("$moved")
wait_health 127.0.0.1:8081 "$moved" "$work/moved.log"
ok "the moved gate answers on 127.0.0.1:8081"
health=$(curl -sS --max-time 10 http://127.0.0.1:8081/healthz)
if grep -qF '"meilisearch":{"reachable":true' <<<"$health" && grep -qF '"ragflow":{"reachable":true' <<<"$health"; then
	ok "its /healthz reaches both development backends"
else
	bad "its /healthz: $health"
fi
curl -fsS --max-time 10 http://127.0.0.1:7701/health | grep -qF '"available"' && ok "its development Meilisearch answers on 7701" || bad "nothing answers on 7701"
if curl -sS --max-time 10 http://127.0.0.1:9381/api/v1/datasets | grep -qF '"code"'; then ok "its development RAGFlow answers on 9381"; else bad "nothing answers on 9381"; fi
[ -d data2 ] && [ -S data2/admin.sock ] && ok "its data directory is data2/ (admin socket inside)" || bad "data2/ has no admin socket: $(ls -la data2 2>&1)"

# The walkthroughs' way to reach it: WIKIGATE_LISTEN for the token's and curl's address.
export WIKIGATE_LISTEN=127.0.0.1:8081
GATE=http://${WIKIGATE_LISTEN:-127.0.0.1:8080}
TOKEN=$(./wikigate token --agent kunora-coding-agent 2>/dev/null)
searched=$(curl -sS --max-time 30 "$GATE/agent/tools/search" -H "Authorization: Bearer $TOKEN" -d '{"question":"agent memory"}')
if grep -qF '"path":"publish/system/components/kunora-kgent/' <<<"$searched"; then ok "a search through \$GATE answers from the sample wiki"; else bad "search on 8081: ${searched:0:400}"; fi

# Pasted again while it runs: refused before it touches the running gate.
if again=$(env -u WIKIGATE_LISTEN -u WIKIGATE_DATA_DIR timeout 30 bash -c "$block" 2>&1); then
	bad "the block ran twice on one data directory: $again"
elif grep -qF "$moved" <<<"$again" || grep -qiF "pid" <<<"$again"; then
	ok "pasted again on data2/: refused, naming the running gate ($(head -1 <<<"$again"))"
else
	bad "pasted again: ${again:0:400}"
fi
curl -fsS --max-time 10 http://127.0.0.1:8081/healthz >/dev/null && ok "the moved gate still answers after that" || bad "the moved gate stopped answering"
if [ -n "$first" ]; then
	curl -fsS --max-time 10 http://127.0.0.1:8080/healthz >/dev/null && ok "the first gate still answers on 8080" || bad "the first gate stopped answering"
fi
exit $fail
