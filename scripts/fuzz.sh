#!/usr/bin/env bash
# Runs every fuzz target for a short time (default 10s each). The committed
# seed corpora also run as plain tests under `go test ./...`.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-10s}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
		echo "fuzz $pkg $target ($fuzztime)"
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >"$out" 2>&1; then
			# Go's fuzzing coordinator can report "context deadline
			# exceeded" as -fuzztime ends (a race in internal/fuzz,
			# golang/go#75804, fixed in go1.27; seen here on a loaded
			# machine); that is not a finding and writes no failing input.
			# Run such a target once more; a real failure names its input
			# under testdata/fuzz and fails at once.
			if grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written' "$out"; then
				echo "fuzz $pkg $target: the fuzzing engine timed out without a finding; once more"
				go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >"$out" 2>&1 && continue
			fi
			tail -40 "$out" >&2
			exit 1
		fi
	done
done
