#!/usr/bin/env bash
# Runs the shell block of README "Loading your wiki" exactly as written
# against the built binary (WIKIGATE_BIN, else built here), started with the
# repo's Caddyfile on non-default ports, and checks what the README says it
# shows: the sample tree changes nothing; one edited page changes exactly
# once in each backend, then not again; the gate's search and answer come
# from the edited page; loading the repo's tree puts it back. The block runs
# in a scratch folder (samplewiki and the binary linked in), so nothing is
# left in the repo. Every wait is bounded; the server is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export WIKIGATE_LISTEN=${WIKIGATE_LISTEN:-127.0.0.1:18690}
export WIKIGATE_MEILI_DEV=${WIKIGATE_MEILI_DEV:-127.0.0.1:18691}
export WIKIGATE_RAGFLOW_DEV=${WIKIGATE_RAGFLOW_DEV:-127.0.0.1:18692}
for addr in "$WIKIGATE_LISTEN" "$WIKIGATE_MEILI_DEV" "$WIKIGATE_RAGFLOW_DEV"; do
	if (exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}") 2>/dev/null; then
		echo "$addr is in use; stop what listens there or set WIKIGATE_LISTEN/_MEILI_DEV/_RAGFLOW_DEV" >&2
		exit 1
	fi
done
work=$(mktemp -d)
export WIKIGATE_DATA_DIR="$work/data"
export WIKIGATE_ADMIN="unix/$work/admin.sock|0600"
bin=${WIKIGATE_BIN:-}
if [ -z "$bin" ]; then
	go build -o "$work/wikigate" ./cmd/wikigate
	bin="$work/wikigate"
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
"$bin" run --config Caddyfile >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
	curl -fsS --max-time 2 "http://$WIKIGATE_LISTEN/healthz" >/dev/null 2>&1 && break
	kill -0 $pid 2>/dev/null || { cat "$work/server.log"; echo "server exited" >&2; exit 1; }
	sleep 0.1
done

mkdir "$work/root"
ln -s "$repo/samplewiki" "$work/root/samplewiki"
ln -s "$bin" "$work/root/wikigate"
block=$(awk '/^## /{on=($0 == "## Loading your wiki")} on' README.md |
	awk '/^```sh$/{inb=1; next} /^```$/{inb=0; next} inb')
out=$(cd "$work/root" && bash -c 'curl() { command curl --max-time 30 "$@"; }; set -ex; '"$block" 2>&1) || {
	echo "$out"
	echo "FAIL: the README block did not run" >&2
	exit 1
}
echo "$out"

fail=0
check() { # check NAME PATTERN: PATTERN (fixed string) must be in the output
	if grep -qF -- "$2" <<<"$out"; then echo "ok   $1"; else echo "FAIL $1: no '$2'" >&2; fail=1; fi
}
summaries=$(grep -E '^(meilisearch|ragflow)( \(dry run: would be\))?: ' <<<"$out")
want="meilisearch: 0 added, 0 changed, 0 removed, 37 unchanged, 0 failed
ragflow: 0 added, 0 changed, 0 removed, 37 unchanged, 0 failed
meilisearch (dry run: would be): 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
ragflow (dry run: would be): 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
meilisearch: 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
ragflow: 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
meilisearch: 0 added, 0 changed, 0 removed, 37 unchanged, 0 failed
ragflow: 0 added, 0 changed, 0 removed, 37 unchanged, 0 failed
meilisearch: 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
ragflow: 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed"
if [ "$summaries" = "$want" ]; then echo "ok   reports: 0 changes, then exactly the edited page, then 0, then back"; else
	echo "FAIL reports:"$'\n'"$summaries"$'\n'"want:"$'\n'"$want" >&2
	fail=1
fi
check "the changed page is named" "  ~ publish/system/components/kunora-kgent/index.md (main)"
check "catalog written" "dataset catalog written to my-catalog.json"
check "search finds the edited text" 'The zeppelin budget caps how much memory one agent may keep.'
check "the answer cites the edited page" '"anchor":"memory-quota"'
TOKEN=$("$bin" token --agent kunora-coding-agent 2>/dev/null)
after=$(curl -sS --max-time 30 "http://$WIKIGATE_LISTEN/agent/tools/search" -H "Authorization: Bearer $TOKEN" \
	-d '{"question":"zeppelin budget"}')
if grep -q zeppelin <<<"$after"; then echo "FAIL the restored tree still answers the edit: $after" >&2; fail=1; else
	echo "ok   after loading the repo's tree again the edit is gone"
fi
exit $fail
