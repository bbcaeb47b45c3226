#!/usr/bin/env bash
# Builds ./wikigate: with xcaddy when it is installed (pinned Caddy version,
# race detector on for dev builds), otherwise with plain `go build`, which
# produces the same binary from cmd/wikigate.
set -euo pipefail
cd "$(dirname "$0")"
CADDY_VERSION="${CADDY_VERSION:-v2.11.9}"
if command -v xcaddy >/dev/null 2>&1; then
	echo "building with xcaddy (Caddy ${CADDY_VERSION})" >&2
	XCADDY_RACE_DETECTOR="${XCADDY_RACE_DETECTOR:-1}" CADDY_VERSION="$CADDY_VERSION" \
		xcaddy build "$CADDY_VERSION" --output ./wikigate \
		--with github.com/wikigate/wikigate=.
else
	echo "xcaddy is not installed (it cannot be fetched from this machine's module proxy);" >&2
	echo "building the same binary with: go build -o wikigate ./cmd/wikigate" >&2
	go build -o wikigate ./cmd/wikigate
fi
