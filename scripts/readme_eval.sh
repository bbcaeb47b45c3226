#!/usr/bin/env bash
# Tries README "Measuring answer quality" as written: the built binary
# (WIKIGATE_BIN, else built here) runs the default Caddyfile (development
# backends with the sample wiki) on non-default ports with its own data
# directory, and the section's shell blocks run in one shell in a scratch
# folder (the repo's files linked in, so nothing is left in the repo). The
# sample wiki's set must pass the thresholds the README gives, with no
# leak, and --from-feedback must turn the reported no-answer into a
# candidate case that the next eval runs. Every wait is bounded; the
# server stops on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export WIKIGATE_LISTEN=${WIKIGATE_LISTEN:-127.0.0.1:18680}
export WIKIGATE_MEILI_DEV=${WIKIGATE_MEILI_DEV:-127.0.0.1:18681}
export WIKIGATE_RAGFLOW_DEV=${WIKIGATE_RAGFLOW_DEV:-127.0.0.1:18682}
work=$(mktemp -d)
export WIKIGATE_DATA_DIR="$work/data" XDG_DATA_HOME="$work/xdg" XDG_CONFIG_HOME="$work/xdg"
bin=${WIKIGATE_BIN:-}
if [ -z "$bin" ]; then
	go build -o "$work/wikigate" ./cmd/wikigate
	bin="$work/wikigate"
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir "$work/root"
for f in evalsets README.md; do ln -s "$repo/$f" "$work/root/$f"; done
ln -s "$bin" "$work/root/wikigate"
(cd "$repo" && exec "$bin" run --config Caddyfile) >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
	curl -fsS --max-time 2 "http://$WIKIGATE_LISTEN/healthz" >/dev/null 2>&1 && break
	kill -0 $pid 2>/dev/null || { cat "$work/server.log"; echo "server exited" >&2; exit 1; }
	sleep 0.1
done
curl -fsS --max-time 2 "http://$WIKIGATE_LISTEN/healthz" >/dev/null || { echo "the gate did not answer in 10s" >&2; exit 1; }

section=$(awk '/^## /{on=($0 == "## Measuring answer quality")} on' README.md)
block=$(awk '/^```sh$/{inb=1; next} /^```$/{inb=0; next} inb' <<<"$section")
[ -n "$block" ] || { echo "README has no 'Measuring answer quality' block" >&2; exit 1; }
cd "$work/root"
wrap="GATE=http://$WIKIGATE_LISTEN"'
curl() { command curl --max-time 30 "$@"; }
set -ex'
out=$(timeout 600 bash -c "$wrap"$'\n'"$block" 2>&1) || { echo "$out"; echo "FAIL: the README blocks did not run" >&2; exit 1; }
echo "$out" | grep -v '^{"level"'

fail=0
has() { # has NAME TEXT PATTERN: PATTERN (fixed string) must be in TEXT
	if grep -qF -- "$3" <<<"$2"; then echo "ok   $1"; else echo "FAIL $1: no '$3'" >&2; fail=1; fi
}
has "the sample wiki's set ran" "$out" "cases                53"
has "no leak" "$out" "restricted leaks     0"
has "the no-answer became a candidate" "$(cat candidates.yaml)" "question: What is the payroll schedule for contractors?"
if [ "$(tail -1 <<<"$out")" = 1 ]; then echo "ok   the candidate set ran: 1 unanswerable case"; else echo "FAIL the candidate set's eval did not count 1 case" >&2; fail=1; fi
exit $fail
