#!/usr/bin/env bash
# Runs the README's "Try it" shell blocks, then docs/agents.md's "Every
# tool, step by step" and "MCP", exactly as written, in order and in one shell (they
# share $TOKEN, $SID...), against a running gate started with the README's
# first command. Prints each command's output; exits non-zero when a block
# fails to run. Use: bash scripts/readme_examples.sh
# The pages write the default address, 127.0.0.1:8080; a gate started
# elsewhere is reached through the variables the binary reads:
# WIKIGATE_LISTEN, or WIKIGATE_LISTEN_HOST and WIKIGATE_LISTEN_PORT.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/readme_lib.sh
listen=${WIKIGATE_LISTEN:-${WIKIGATE_LISTEN_HOST:-127.0.0.1}:${WIKIGATE_LISTEN_PORT:-8080}}
export WIKIGATE_LISTEN=$listen # the blocks' GATE=http://${WIKIGATE_LISTEN:-…} follows it
script=$({ readme_section README.md "Try it"; readme_section docs/agents.md "Every tool, step by step"
	readme_section docs/agents.md MCP; } |
	readme_sh_blocks | sed "s#http://127\.0\.0\.1:8080#http://$listen#g")
bash -c 'curl() { command curl --max-time 30 "$@"; }; set -ex; '"$script" 2>&1
