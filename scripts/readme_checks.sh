#!/usr/bin/env bash
# Tries, as written, the pages' checks an operator runs against a running
# gate: the built binary (WIKIGATE_BIN, else built here) runs the default
# Caddyfile, as the Quick start starts it, on non-default ports with its own
# data directory, in a scratch folder (the repo's files linked in, ./wikigate
# the binary), and then:
#   docs/security.md "Hostile-client check": go run ./scripts/hostile from
#     the repo root (go run needs the module), with WIKIGATE_HOSTILE_API_KEY
#     set to a key made with `wikigate key create`, as the page suggests;
#     it must exit 0, print a PASS line for each attack the page lists and
#     no FAIL, and the gate must still answer afterwards
#   docs/backends.md "What the backends must hold" (Checking a deployment):
#     wikigate doctor must exit 0 with no problem and print the lines the
#     page shows (the block marked "not run" needs a real Meilisearch)
#   docs/ingest.md "Loading your wiki", its first ```console block (the
#     layouts): the dry runs of the repo's test trees (the lines naming ~/
#     are the reader's own trees, not run); each must name its layout and
#     the pages it read, as the page says
# What a page writes as a placeholder is filled in here: 127.0.0.1:8080 is
# this gate's address. Every wait is bounded; the server stops on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. scripts/readme_lib.sh
readme_ports 24200
readme_scratch
readme_bin
readme_root Caddyfile samplewiki ingest
cp -r rego "$work/root/rego" # a copy: the policy loader does not follow a linked folder
export WIKIGATE_DATA_DIR="$work/root/data"
mkdir -m 0700 "$WIKIGATE_DATA_DIR"
(cd "$work/root" && exec ./wikigate run --config Caddyfile) >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT # || true: set -e would end the trap before rm when the gate already exited
readme_wait_healthz "$WIKIGATE_LISTEN" $pid "$work/server.log" 600 # the policy's start-up checks take long on a busy machine

# is NAME GOT WANT: GOT must equal WANT (an exit code), as has and lacks do.
is() {
	if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: got $2, want $3" >&2; fail=1; fi
}
# run PAGE TITLE DIR [FILTER [INFO]]: the ```sh blocks (```INFO) of section
# TITLE of PAGE, except those after a "<!-- … not run" marker, with this
# gate's address and FILTER (sed) filled in, in one shell in DIR; output
# and exit code in $out, $rc.
run() {
	local block
	# A marker applies to the next block only, whatever its kind.
	block=$(readme_section "$repo/$1" "$2" | awk -v info="${5:-sh}" '!infence && /^<!-- .*not run/{skip=1; next}
		/^```/{if (!infence) {infence=1; want=($0 == "```" info && !skip); skip=0} else if ($0 == "```") {infence=0; want=0}; next}
		want' | sed -e "s#127\.0\.0\.1:8080#$WIKIGATE_LISTEN#g" ${4:+-e "$4"})
	[ -n "$block" ] || { echo "FAIL: $1 '$2' has no shell block" >&2; exit 1; }
	echo "== $1 '$2'"
	rc=0
	out=$(cd "$3" && timeout 300 bash -c "set -e; curl() { command curl --max-time 30 \"\$@\"; }; set -x"$'\n'"$block" 2>&1) || rc=$?
	echo "$out" | grep -v '^{"level"'
}

# security.md: the hostile client, with an API key for the key pairings.
WIKIGATE_HOSTILE_API_KEY=$(cd "$work/root" && ./wikigate key create --agent kunora-coding-agent --label hostile 2>/dev/null | grep -oE 'wgk_[A-Za-z0-9_-]+' | head -1) || true
[ -n "$WIKIGATE_HOSTILE_API_KEY" ] || { echo "FAIL: wikigate key create printed no key" >&2; exit 1; }
export WIKIGATE_HOSTILE_API_KEY
page=docs/security.md
run $page "Hostile-client check" "$repo"
is "the hostile client passes" "$rc" 0
lacks "no attack fails" "$out" "FAIL"
# The attacks the page lists, by the names the program prints.
for a in dup-keys case-variant-keys unicode-folded-key invalid-utf8 mcp-refusals-are-json-rpc \
	mcp-strict-members mcp-undeclared-capabilities mcp-input-schemas mcp-priming-event two-credentials \
	invalid-jwt-valid-key strict-jwt-signature mcp-expect-100-bad-token mcp-partial-body-bad-token \
	mcp-unknown-agent future-iat expect-100-unauthenticated slow-bodies hangup-healthz hangup-ask \
	dup-session-token anonymous-session-flood; do
	has "PASS $a" "$out" "PASS $a "
done
has "the gate still answers" "$(curl -sS --max-time 10 "http://$WIKIGATE_LISTEN/healthz")" '"status":"ok"'

page=docs/backends.md
run $page "What the backends must hold" "$work/root"
is "doctor passes" "$rc" 0
# The lines the page shows under the block (its "..." elided).
shown=$(readme_section $page "What the backends must hold" | awk '/^\.\/wikigate doctor --config Caddyfile$/{on=1; next}
	on && /^```$/{n++; if (n == 3) exit; next} on && n == 2 && $0 != "..."')
[ -n "$shown" ] || { echo "FAIL: $page no longer shows doctor's output under its block" >&2; exit 1; }
while IFS= read -r line; do
	case "$line" in
	*"problem(s)"*) has "doctor: no problem" "$out" "0 problem(s)" ;;
	*) has "doctor prints: $line" "$out" "$line" ;;
	esac
done <<<"$shown"

page=docs/ingest.md
# Its first console block; the second, the start with empty backends, is
# scripts/readme_ingest.sh's.
run $page "Loading your wiki" "$work/root" '/~\//d; /^WIKIGATE_DEV_CORPUS=empty /d' console
is "the layouts' dry runs pass" "$rc" 0
has "the Docusaurus tree" "$out" "ingest/testdata/trees/prettier:"
has "the MkDocs tree, as the page shows it" "$out" "ingest/testdata/trees/httpx: 23 pages read as a mkdocs tree"
exit $fail
