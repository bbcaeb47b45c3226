#!/usr/bin/env bash
# Tries README "Adding a project" as written: the built binary
# (WIKIGATE_BIN, else built here) runs the default Caddyfile (development
# backends with the sample wiki) on non-default ports with its own data
# directory, and the section's shell block runs in a scratch folder (the
# repo's files linked in, so nothing is left in the repo). It must ingest
# the new tree, propose exactly the three changes the README names without
# touching rego/data.json, and doctor must find no problem with the
# proposal applied. Then a gate with the proposal and the tree's mapping
# (site_mapping) must scope a question asked on the slug URL /handbook/start
# to the page's section. Every wait is bounded; servers stop on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export WIKIGATE_LISTEN=${WIKIGATE_LISTEN:-127.0.0.1:18670}
export WIKIGATE_MEILI_DEV=${WIKIGATE_MEILI_DEV:-127.0.0.1:18671}
export WIKIGATE_RAGFLOW_DEV=${WIKIGATE_RAGFLOW_DEV:-127.0.0.1:18672}
work=$(mktemp -d)
export WIKIGATE_DATA_DIR="$work/data" XDG_DATA_HOME="$work/xdg" XDG_CONFIG_HOME="$work/xdg"
bin=${WIKIGATE_BIN:-}
if [ -z "$bin" ]; then
	go build -o "$work/wikigate" ./cmd/wikigate
	bin="$work/wikigate"
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir "$work/root"
for f in samplewiki rego Caddyfile README.md; do ln -s "$repo/$f" "$work/root/$f"; done
ln -s "$bin" "$work/root/wikigate"
cd "$work/root"
start_gate() { # start_gate DIR CADDYFILE: runs it from DIR, waits for /healthz
	(cd "$1" && exec "$bin" run --config "$2") >"$work/server.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		curl -fsS --max-time 2 "http://$WIKIGATE_LISTEN/healthz" >/dev/null 2>&1 && return 0
		kill -0 $pid 2>/dev/null || { cat "$work/server.log"; echo "server exited" >&2; exit 1; }
		sleep 0.1
	done
	echo "the gate did not answer in 10s" >&2
	exit 1
}
pid=
trap '[ -z "$pid" ] || { kill $pid 2>/dev/null; wait $pid 2>/dev/null; }; rm -rf "$work"' EXIT
start_gate "$repo" Caddyfile # the policy loader reads a real rego/, not a link

fail=0
has() { # has NAME TEXT PATTERN: PATTERN (fixed string) must be in TEXT
	if grep -qF -- "$3" <<<"$2"; then echo "ok   $1"; else echo "FAIL $1: no '$3' in: ${2:0:800}" >&2; fail=1; fi
}
section=$(awk '/^## /{on=($0 == "## Adding a project")} on' README.md)
block=$(awk '/^```sh$/{inb=1; next} /^```$/{inb=0; next} inb' <<<"$section")
[ -n "$block" ] || { echo "README has no 'Adding a project' block" >&2; exit 1; }
before=$(sha256sum "$repo/rego/data.json")
# rm keeps the tree and the proposal for the second half before the block's clean-up.
wrap='curl() { command curl --max-time 30 "$@"; }
rm() { [ ! -d handbook ] || cp -r handbook ../kept; command rm "$@"; }
set -ex'
out=$(bash -c "$wrap"$'\n'"$block" 2>&1) || { echo "$out"; echo "FAIL: the README block did not run" >&2; exit 1; }
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
