#!/usr/bin/env bash
# Tries docs/operators.md's "Deploying" section as written: starts the gate
# of the README's Quick start (the default Caddyfile, development backends) on the addresses
# the binary reads (WIKIGATE_LISTEN, WIKIGATE_MEILI_DEV, WIKIGATE_RAGFLOW_DEV
# or their _HOST/_PORT parts), then runs every ```sh block of the section in
# one shell, in order, except those marked `<!-- readme_deploy: not run …`
# (Docker, systemd, a full release rebuild: deploy/deploy_test.go covers
# the build line). The section's blocks set the production paths
# themselves (WIKIGATE_POLICY_DIR, WIKIGATE_LOG_DIR), as an operator
# pasting them would; only the data directory and Caddy's storage are
# pointed at a temporary directory. Every file under deploy/ the section
# names must exist. Exits non-zero when a command fails.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/readme_lib.sh
curl() { command curl --max-time 30 "$@"; }
readme_scratch
unset WIKIGATE_LOG_DIR WIKIGATE_POLICY_DIR
addr() {
	local whole=$1 host=$1_HOST port=$1_PORT
	if [ -n "${!whole:-}" ]; then echo "${!whole}"; else echo "${!host:-${2%:*}}:${!port:-${2##*:}}"; fi
}
GATE="http://$(addr WIKIGATE_LISTEN 127.0.0.1:8080)"
page=docs/operators.md
section=$(readme_section $page Deploying)
[ -n "$section" ] || { echo "$page has no Deploying section" >&2; exit 1; }
missing=0
for f in $(grep -o 'deploy/[A-Za-z0-9_.-]*[A-Za-z0-9]' <<<"$section" | sort -u); do
	[ -e "$f" ] || { echo "the Deploying section names $f, which does not exist" >&2; missing=1; }
done
[ $missing = 0 ] || exit 1
script=$(awk '/^<!-- readme_deploy: not run/{skip=1; next}
	/^```sh$/{inb=1; next} /^```$/{if (inb) {inb=0; skip=0}; next}
	inb && !skip' <<<"$section")
go build -o wikigate ./cmd/wikigate
./wikigate run --config Caddyfile >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
	curl -fsS "$GATE/healthz" >/dev/null 2>&1 && break
	kill -0 $pid 2>/dev/null || { cat "$work/server.log" >&2; echo "the gate exited" >&2; exit 1; }
	sleep 0.1
done
curl -fsS "$GATE/healthz" >/dev/null || { echo "the gate did not answer in 10s" >&2; exit 1; }
bash -c 'set -ex; '"$script"
echo "readme_deploy: the Deploying section's commands ran"
