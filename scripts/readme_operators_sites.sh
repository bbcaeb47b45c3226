#!/usr/bin/env bash
# Tries the shell blocks of docs/operators.md (outside "Deploying", which
# scripts/readme_deploy.sh runs) and docs/docs-sites.md as written: the
# built binary (WIKIGATE_BIN, else built here) runs the default Caddyfile,
# as the pages start it, on non-default ports with its own data directory,
# in a scratch folder (the repo's files linked in, ./wikigate the binary, so
# nothing is left in the repo), the development RAGFlow pausing between
# deltas as docs/docs-sites.md "Streaming" says (WIKIGATE_RAGFLOW_DEV_DELTA_PAUSE=300ms).
# Run here:
#   operators.md "Keys" (Tokens and API keys): token, key create/list/revoke;
#     the created key is served by the gate, then refused once revoked
#   operators.md "Logs, errors, admin API and metrics" (Admin API, reload
#     and metrics): both reloads and the metrics on the admin socket
#   docs-sites.md "Streaming": the streamed answer and the cancelled one,
#     with the development RAGFlow's request log
# What a page writes as a placeholder is filled in here, before the block
# runs: `<prefix>` is the created key's prefix, 127.0.0.1:8080 and
# 127.0.0.1:9380 are this gate's and its development RAGFlow's addresses.
# Not here: operators.md "Tracing" (it starts gates of its own, with an
# OTLP collector): scripts/readme_tracing.sh runs it.
# docs-sites.md has no other shell block (its resume, search and feedback
# examples are http/js, not commands). Every wait is bounded; the server
# stops on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. scripts/readme_lib.sh
readme_ports 29200
readme_scratch
readme_bin
readme_root Caddyfile samplewiki
cp -r rego "$work/root/rego" # a copy: the policy loader does not follow a linked folder
# The data directory the pages name, data/ in the folder the gate runs in:
# the admin socket data/admin.sock and the key file data/api_keys.json.
export WIKIGATE_DATA_DIR="$work/root/data"
mkdir -m 0700 "$WIKIGATE_DATA_DIR"
(cd "$work/root" && WIKIGATE_RAGFLOW_DEV_DELTA_PAUSE=300ms exec ./wikigate run --config Caddyfile) >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT # || true: set -e would end the trap before rm when the gate already exited
readme_wait_healthz "$WIKIGATE_LISTEN" $pid "$work/server.log"
cd "$work/root"

# is NAME GOT WANT: GOT must equal WANT (an exit code), as has and lacks do.
is() {
	if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: got $2, want $3" >&2; fail=1; fi
}
# blocks PAGE TITLE [FILTER]: the ```sh blocks of section TITLE of PAGE,
# placeholders filled in by FILTER (sed).
blocks() {
	local b
	b=$(readme_section "$repo/$1" "$2" | readme_sh_blocks | sed -e "s#127\.0\.0\.1:8080#$WIKIGATE_LISTEN#g" \
		-e "s#127\.0\.0\.1:9380#$WIKIGATE_RAGFLOW_DEV#g" ${3:+-e "$3"})
	[ -n "$b" ] || { echo "FAIL: $1 '$2' has no shell block" >&2; exit 1; }
	printf '%s\n' "$b"
}
# run PAGE TITLE [FILTER [SET]]: those blocks in one shell (`set -e`
# unless SET says otherwise); output and exit code in $out, $rc.
run() {
	local block
	block=$(blocks "$1" "$2" "${3:-}")
	echo "== $1 '$2'"
	rc=0
	out=$(timeout 60 bash -c "${4:-set -e}; curl() { command curl --max-time 30 \"\$@\"; }; set -x"$'\n'"$block" 2>&1) || rc=$?
	echo "$out" | grep -v '^{"level"'
}
apikey() { # apikey KEY: the status of a search with that API key
	curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$WIKIGATE_LISTEN/agent/tools/search" -H "X-Agent-Api-Key: $1" -d '{"question":"agent memory"}'
}

# operators.md "Keys": the revoke line names the prefix of the key the
# create line made, so the block runs up to it, then the revoke line.
page=docs/operators.md
keys=$(blocks $page Keys)
revoke=$(grep -- '--prefix <prefix>' <<<"$keys") || { echo "FAIL: $page 'Keys' no longer revokes --prefix <prefix>" >&2; exit 1; }
echo "== $page 'Keys'"
out=$(bash -c "set -ex"$'\n'"$(grep -v -- '--prefix <prefix>' <<<"$keys")" 2>&1) || { echo "$out"; echo "FAIL: $page 'Keys' did not run" >&2; exit 1; }
echo "$out"
has "an agent token (a JWT)" "$out" "eyJ"
has "the key is shown once" "$out" "it is shown once, store it now"
key=$(grep -oE 'wgk_[A-Za-z0-9_-]+' <<<"$out" | head -1) || true
prefix=$(awk '/^\+ \.\/wikigate key list/{on=1; next} on && /agent=kunora-coding-agent/ && /label="ci"/ {print $1; exit}' <<<"$out")
[ -n "$key" ] && [ -n "$prefix" ] || { echo "FAIL: key create/list printed no key labelled ci" >&2; exit 1; }
has "the created key is served" "$(apikey "$key")" 200
out=$(bash -c "set -ex"$'\n'"${revoke//<prefix>/$prefix}" 2>&1) || { echo "$out"; echo "FAIL: $page 'Keys' revoke did not run" >&2; exit 1; }
echo "$out"
has "revoke prints what it revoked" "$out" "revoked $prefix"
has "revoke names the agent and label" "$out" 'agent=kunora-coding-agent	label="ci"'
has "revoking again says so" "$(bash -c "${revoke//<prefix>/$prefix}" 2>&1)" "already revoked"
for _ in $(seq 1 30); do [ "$(apikey "$key")" = 401 ] && break; sleep 0.1; done
has "the revoked key is refused" "$(apikey "$key")" 401

run $page "Logs, errors, admin API and metrics"
is "both reloads and the metrics ran" "$rc" 0
has "the gate's metrics on the admin socket" "$out" "caddy_wikigate_calls_total"
curl -fsS --max-time 5 "http://$WIKIGATE_LISTEN/healthz" >/dev/null && echo "ok   the gate answers after the reloads" || { echo "FAIL the gate stopped answering after the reloads" >&2; fail=1; }

# docs-sites.md "Streaming": curl --max-time 1.2 exits 28 when it leaves, as meant.
page=docs/docs-sites.md
run $page Streaming "" "set +e"
has "the streamed answer's stages" "$out" '"stage":"generating"'
has "a delta" "$out" "event: delta"
has "the final citations" "$out" '"final":true'
has "the result" "$out" "event: result"
has "done" "$out" "event: done"
has "the second stream is cut by --max-time" "$out" "curl: (28)"
# The block reads the log as soon as curl leaves; under load the gate may
# record the cancellation a moment later, so the log is read again (3 s).
# The entry the page's comment shows, from its "path" on (its list may go on
# after it: the gate's health checks are logged too).
cancelled=$(readme_section "$repo/$page" Streaming | grep -F '# … {' | grep -F '"cancelled":true' | sed -e 's/.*"path"/"path"/' -e 's/]}$//') || true
[ -n "$cancelled" ] || { echo "FAIL: $page 'Streaming' no longer shows the cancelled call's log entry" >&2; exit 1; }
for _ in $(seq 1 30); do
	grep -qF "$cancelled" <<<"$out" && break
	sleep 0.1
	out=$(blocks $page Streaming | grep '_dev/requests' | bash 2>&1) || true
done
has "the development RAGFlow saw the call cancelled (as the page's comment shows it)" "$out" "$cancelled"
exit $fail
