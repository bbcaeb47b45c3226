#!/usr/bin/env bash
# Builds ./wikigate: with xcaddy when it is installed (pinned Caddy version),
# otherwise with plain `go build`, which produces the same binary from
# cmd/wikigate.
#
# The race detector is off by default (a release build must not carry it:
# it slows the gate several times); XCADDY_RACE_DETECTOR=1 turns it on for
# a development build.
#
# The module path: xcaddy builds a throwaway main module that requires
# github.com/wikigate/wikigate. From this checkout, `--with
# github.com/wikigate/wikigate=.` replaces it with the local tree, which is
# what you want to build your working copy, unpushed changes included, or
# whenever the module is not published under that path (a fork, a private
# mirror: set WIKIGATE_MODULE to the path your go.mod declares). Without the
# `=.` replacement xcaddy would fetch the published module instead.
set -euo pipefail
cd "$(dirname "$0")"
CADDY_VERSION="${CADDY_VERSION:-v2.11.9}"
MODULE="${WIKIGATE_MODULE:-$(go list -m)}"
if command -v xcaddy >/dev/null 2>&1; then
	echo "building with xcaddy (Caddy ${CADDY_VERSION}, ${MODULE}=. , race detector ${XCADDY_RACE_DETECTOR:-0})" >&2
	XCADDY_RACE_DETECTOR="${XCADDY_RACE_DETECTOR:-0}" CADDY_VERSION="$CADDY_VERSION" \
		xcaddy build "$CADDY_VERSION" --output ./wikigate \
		--with "${MODULE}=."
else
	echo "xcaddy is not installed (it cannot be fetched from this machine's module proxy);" >&2
	echo "building the same binary with: go build -o wikigate ./cmd/wikigate" >&2
	go build -o wikigate ./cmd/wikigate
fi
