#!/usr/bin/env bash
# Runs the README's "Try it" shell blocks exactly as written, in order and
# in one shell (they share $TOKEN, $SID...), against a running gate started
# with the README's first command. Prints each command's output; exits
# non-zero when a block fails to run. Use: bash scripts/readme_examples.sh
set -uo pipefail
cd "$(dirname "$0")/.."
script=$(awk '/^## Try it/{on=1} /^## Routes/{on=0} on' README.md |
	awk '/^```sh$/{inb=1; next} /^```$/{inb=0; next} inb')
bash -c 'curl() { command curl --max-time 30 "$@"; }; set -ex; '"$script" 2>&1
