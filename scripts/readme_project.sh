#!/usr/bin/env bash
# Tries docs/ingest.md "Adding a project" as written: the built binary
# (WIKIGATE_BIN, else built here) runs the default Caddyfile (development
# backends with the sample wiki) on non-default ports with its own data
# directory, and the section's shell block runs in a scratch folder (the
# repo's files linked in, so nothing is left in the repo). It must ingest
# the new tree, propose exactly the three changes the page names without
# touching rego/data.json, and doctor must find no problem with the
# proposal applied. Then a gate with the proposal and the tree's mapping
# (site_mapping) must scope a question asked on the slug URL /handbook/start
# to the page's section. Every wait is bounded; servers stop on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. scripts/readme_lib.sh
readme_ports 18670
readme_scratch
readme_bin
readme_root samplewiki rego Caddyfile
page=docs/ingest.md
section=$(readme_section $page "Adding a project")
cd "$work/root"
start_gate() { # start_gate DIR CADDYFILE: runs it from DIR, waits for /healthz
	(cd "$1" && exec "$bin" run --config "$2") >"$work/server.log" 2>&1 &
	pid=$!
	readme_wait_healthz "$WIKIGATE_LISTEN" $pid "$work/server.log"
}
pid=
trap '[ -z "$pid" ] || { kill $pid 2>/dev/null; wait $pid 2>/dev/null; }; rm -rf "$work"' EXIT
start_gate "$repo" Caddyfile # the policy loader reads a real rego/, not a link

block=$(readme_sh_blocks <<<"$section")
[ -n "$block" ] || { echo "$page has no 'Adding a project' block" >&2; exit 1; }
before=$(sha256sum "$repo/rego/data.json")
# rm keeps the tree and the proposal for the second half before the block's clean-up.
wrap='curl() { command curl --max-time 30 "$@"; }
rm() { [ ! -d handbook ] || cp -r handbook ../kept; command rm "$@"; }
set -ex'
out=$(bash -c "$wrap"$'\n'"$block" 2>&1) || { echo "$out"; echo "FAIL: the block of $page did not run" >&2; exit 1; }
echo "$out" | grep -v '^{"level"'
has "datasets proposed" "$out" "catalog.datasets.handbook: added"
has "public project proposed" "$out" "humans.public.projects: add handbook (root handbook)"
has "public path proposed" "$out" "humans.public.paths: add handbook"
has "doctor finds no problem with the proposal applied" "$out" "0 problem(s)"
[ "$before" = "$(sha256sum "$repo/rego/data.json")" ] && echo "ok   rego/data.json unchanged" || { echo "FAIL rego/data.json changed" >&2; fail=1; }

# The proposal applied and the tree's mapping named: a question asked on
# the slug's URL is scoped to the page's section.
kill $pid; wait $pid 2>/dev/null || true
mkdir "$work/rego2" && cp "$repo"/rego/*.rego "$work/rego2/" && cp ../kept/data.json "$work/rego2/data.json"
cp -r ../kept handbook
sed -e "s|policy_dir rego|policy_dir $work/rego2|" -e 's|{$WIKIGATE_SITE_MAPPING:samplewiki/wiki-map.yaml}|handbook/map.yaml|' Caddyfile >"$work/Caddyfile"
start_gate "$work/root" "$work/Caddyfile"
asked=$(curl -sS --max-time 30 "http://$WIKIGATE_LISTEN/answer/ask" -d '{"question":"When does the pager rotation start?","page":{"url":"https://docs.example.com/handbook/start"}}')
has "a question on /handbook/start is scoped to its section" "$asked" '"scope":"main:handbook/onboarding"'
exit $fail
