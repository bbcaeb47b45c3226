#!/usr/bin/env bash
# Tries docs/eval.md as written: the built binary (WIKIGATE_BIN, else
# built here) runs the default Caddyfile (development backends with the
# sample wiki) on non-default ports with its own data directory, and the
# page's shell blocks run in one shell in a scratch folder (the repo's
# files linked in, so nothing is left in the repo). The sample wiki's set
# must pass the thresholds the page gives, with no leak, and
# --from-feedback must turn the reported no-answer into a candidate case
# that the next eval runs. Every wait is bounded; the server stops on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. scripts/readme_lib.sh
readme_ports 18680
readme_scratch
readme_bin
readme_root evalsets
(cd "$repo" && exec "$bin" run --config Caddyfile) >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
readme_wait_healthz "$WIKIGATE_LISTEN" $pid "$work/server.log"

page=docs/eval.md
block=$(readme_sh_blocks <$page)
[ -n "$block" ] || { echo "$page has no shell block" >&2; exit 1; }
cd "$work/root"
wrap="GATE=http://$WIKIGATE_LISTEN"'
curl() { command curl --max-time 30 "$@"; }
set -ex'
out=$(timeout 600 bash -c "$wrap"$'\n'"$block" 2>&1) || { echo "$out"; echo "FAIL: the blocks of $page did not run" >&2; exit 1; }
echo "$out" | grep -v '^{"level"'

has "the sample wiki's set ran" "$out" "cases                53"
has "no leak" "$out" "restricted leaks     0"
has "the no-answer became a candidate" "$(cat candidates.yaml)" "question: What is the payroll schedule for contractors?"
if [ "$(tail -1 <<<"$out")" = 1 ]; then echo "ok   the candidate set ran: 1 unanswerable case"; else echo "FAIL the candidate set's eval did not count 1 case" >&2; fail=1; fi
exit $fail
