#!/usr/bin/env bash
# Tries docs/ingest.md "Loading your wiki" as written, the way issue 11
# accepts it: the built binary (WIKIGATE_BIN, else built here) is started
# as the page says, with EMPTY development backends
# (WIKIGATE_DEV_CORPUS=empty), on non-default ports; before anything is
# loaded its search answers 503 (there is no index) and its ask that it has
# no answer (its datasets do not exist yet). Then the page's shell block
# runs as written: the repo's tree goes in (37 added in each backend, 12
# datasets, the catalog equal to rego/data.json's), a second run changes
# nothing, one edited page of a copy changes exactly once in each backend
# and the gate's answer changes with it, and the repo's tree is loaded
# back. Last, the README's "Try it" and docs/agents.md's "Every tool, step
# by step" and "MCP" (scripts/readme_examples.sh) run against what was loaded and
# must answer from it. Everything runs in a scratch folder (the repo's
# files linked in), so nothing is left in the repo; every wait is bounded;
# the server is stopped on exit. Needs curl, and node or python3 to compare
# the two catalogs as JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. scripts/readme_lib.sh
readme_ports 18690
page=docs/ingest.md
section=$(readme_section $page "Loading your wiki")
start='WIKIGATE_DEV_CORPUS=empty ./wikigate run --config Caddyfile'
grep -qxF "$start" <<<"$section" || { echo "FAIL: $page 'Loading your wiki' no longer starts the gate with: $start" >&2; exit 1; }

readme_scratch
export WIKIGATE_ADMIN="unix/$work/admin.sock|0600"
readme_bin
WIKIGATE_DEV_CORPUS=empty "$bin" run --config Caddyfile >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
readme_wait_healthz "$WIKIGATE_LISTEN" $pid "$work/server.log"

gate() { # gate PATH BODY: an agent's call, status and body
	curl -sS --max-time 30 -w ' HTTP %{http_code}' "http://$WIKIGATE_LISTEN$1" -H "Authorization: Bearer $TOKEN" -d "$2"
}
TOKEN=$("$bin" token --agent kunora-coding-agent 2>/dev/null)
health=$(curl -sS --max-time 10 "http://$WIKIGATE_LISTEN/healthz")
has "empty: /healthz reaches Meilisearch" "$health" '"meilisearch":{"reachable":true'
has "empty: /healthz reaches RAGFlow" "$health" '"ragflow":{"reachable":true'
searched=$(gate /agent/tools/search '{"question":"agent memory"}')
has "empty: search is 503 search_unavailable" "$searched" '"code":"search_unavailable","message":"search backend is unavailable"'
has "empty: search is 503 search_unavailable (status)" "$searched" ' HTTP 503'
asked=$(gate /agent/tools/ask '{"question":"How do I configure agent memory?"}')
has "empty: ask has no answer (its datasets do not exist: no pages, not an outage)" "$asked" '"citations":[]'
has "empty: ask has no answer (status)" "$asked" ' HTTP 200'
for _ in $(seq 1 20); do # the audit record may be written just after the reply
	grep -qF 'Index `wiki_pages` not found.' "$work/server.log" && break
	sleep 0.1
done
has "empty: the audit record names the missing index" "$(cat "$work/server.log")" 'Index `wiki_pages` not found.'

readme_root samplewiki rego Caddyfile README.md docs scripts
block=$(readme_sh_blocks <<<"$section")
# rm keeps a copy of the catalog the block wrote before its clean-up removes it.
wrap='curl() { command curl --max-time 30 "$@"; }
rm() { [ ! -f my-catalog.json ] || cp my-catalog.json ../catalog.json; command rm "$@"; }
set -ex'
out=$(cd "$work/root" && bash -c "$wrap"$'\n'"$block" 2>&1) || {
	echo "$out"
	echo "FAIL: the block of $page did not run" >&2
	exit 1
}
echo "$out"

summaries=$(grep -E '^(meilisearch|ragflow)( \(dry run: would be\))?: ' <<<"$out")
want="meilisearch: 37 added, 0 changed, 0 removed, 0 unchanged, 0 failed
ragflow: 37 added, 0 changed, 0 removed, 0 unchanged, 0 failed
meilisearch: 0 added, 0 changed, 0 removed, 37 unchanged, 0 failed
ragflow: 0 added, 0 changed, 0 removed, 37 unchanged, 0 failed
meilisearch (dry run: would be): 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
ragflow (dry run: would be): 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
meilisearch: 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
ragflow: 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
meilisearch: 0 added, 0 changed, 0 removed, 37 unchanged, 0 failed
ragflow: 0 added, 0 changed, 0 removed, 37 unchanged, 0 failed
meilisearch: 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed
ragflow: 0 added, 1 changed, 0 removed, 36 unchanged, 0 failed"
if [ "$summaries" = "$want" ]; then echo "ok   reports: 37 added, then 0 changes, then exactly the edited page, then 0, then back"; else
	echo "FAIL reports:"$'\n'"$summaries"$'\n'"want:"$'\n'"$want" >&2
	fail=1
fi
created=$(grep -c '^  \* created dataset "' <<<"$out" || true)
if [ "$created" = 12 ]; then echo "ok   12 datasets created"; else echo "FAIL $created datasets created, want 12" >&2; fail=1; fi
has "catalog written" "$out" "dataset catalog written to my-catalog.json"
has "doctor finds nothing missing" "$out" "0 problem(s)"
has "the changed page is named" "$out" "  ~ publish/system/components/kunora-kgent/index.md (main)"
has "search finds the edited text" "$out" 'The zeppelin budget caps how much memory one agent may keep.'
answers=$(grep '^{"answer"' <<<"$out")
before=$(head -1 <<<"$answers")
after=$(tail -1 <<<"$answers")
has "the first answer is cited from the loaded tree" "$before" '"path":"publish/system/components/kunora-kgent/'
lacks "the first answer knows no edit" "$before" 'zeppelin'
has "the answer after the edit cites the new section" "$after" '"anchor":"memory-quota"'

same_json() { # same_json A B: the "catalog" members of two JSON files are equal
	if command -v node >/dev/null; then
		node -e 'const fs = require("fs");
const canon = (v) => v === null || typeof v !== "object" ? JSON.stringify(v)
  : Array.isArray(v) ? "[" + v.map(canon) + "]"
  : "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canon(v[k])) + "}";
const [a, b] = process.argv.slice(1).map((f) => canon(JSON.parse(fs.readFileSync(f, "utf8")).catalog));
process.exit(a === b ? 0 : 1);' "$1" "$2"
	else
		python3 -c 'import json, sys; a, b = (json.load(open(f))["catalog"] for f in sys.argv[1:]); sys.exit(a != b)' "$1" "$2"
	fi
}
if same_json "$work/catalog.json" rego/data.json; then echo "ok   the catalog ingest wrote is rego/data.json's"; else
	echo "FAIL the catalog ingest wrote differs from rego/data.json's:" >&2
	cat "$work/catalog.json" >&2
	fail=1
fi
TOKEN=$("$bin" token --agent kunora-coding-agent 2>/dev/null)
lacks "after loading the repo's tree again the edit is gone" "$(gate /agent/tools/search '{"question":"zeppelin budget"}')" zeppelin

# The README's Try it and docs/agents.md's examples, against what was loaded (readme_examples.sh
# reads WIKIGATE_LISTEN; ./wikigate is the binary under test).
examples=$(cd "$work/root" && bash scripts/readme_examples.sh) || {
	echo "$examples"
	echo "FAIL: the Try it examples did not run" >&2
	exit 1
}
echo "$examples"
has "Try it: search hits a loaded page" "$examples" '"hits":[{"path":"publish/system/components/kunora-kgent/'
has "Try it: get_page reads a loaded page" "$examples" '"pages":[{"path":"publish/system/components/kunora-kgent/index.md"'
has "Try it: a cited answer" "$examples" '"citations":[{"path":"publish/system/components/kunora-kgent/'
has "Try it: an honest no-answer" "$examples" '"noAnswerReason":{"code":"no_answer","reason":"no_evidence"'
has "Try it: a denied scope" "$examples" '"code":"forbidden_scope"'
lacks "Try it: no backend is unavailable" "$examples" '_unavailable"'
has "MCP: tools/call search answers in structuredContent" "$examples" '"structuredContent":{"hits":[{"path":"publish/system/components/kunora-kgent/'
has "MCP: outside the grant is an isError result with the protocol's code" "$examples" '"code":"forbidden_scope","message":"project \"ops-runbooks\" is not in your grant"'
exit $fail
