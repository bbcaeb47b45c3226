#!/usr/bin/env bash
# bench/eval.sh: how long `wikigate eval` takes for 100 cases against the
# development backends (target: 30 s or less, README "Measuring answer
# quality"); writes bench/EVAL.md (date, machine, commit, command, wall
# time, the run's latencies and figures) and adds a row to its History.
#
#   bash bench/eval.sh            # writes bench/EVAL.md
#   BENCH_EVAL_OUT=/tmp/x.md bash bench/eval.sh
#
# The gate runs the repo's Caddyfile (development backends over the sample
# wiki) from a scratch folder on 127.0.0.1:1869x, with a copy of rego/
# whose rate limits are raised (bench/internal/highlimits): 100 cases ask
# faster than one caller's budget allows, and waiting out 429s would time
# the limiter, not the gate. The 100 cases are the sample wiki's 53 and
# the first 47 again (the gate keeps no answers, so a case asked twice
# costs the same both times). Every wait is bounded; the gate stops on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
OUT_MD=${BENCH_EVAL_OUT:-$repo/bench/EVAL.md}
TARGET_S=30
CONCURRENCY=${BENCH_EVAL_CONCURRENCY:-4}
export WIKIGATE_LISTEN_PORT=${WIKIGATE_LISTEN_PORT:-18690}
export WIKIGATE_MEILI_DEV_PORT=${WIKIGATE_MEILI_DEV_PORT:-18691}
export WIKIGATE_RAGFLOW_DEV_PORT=${WIKIGATE_RAGFLOW_DEV_PORT:-18692}
export WIKIGATE_MEILI_URL=http://127.0.0.1:$WIKIGATE_MEILI_DEV_PORT
export WIKIGATE_RAGFLOW_URL=http://127.0.0.1:$WIKIGATE_RAGFLOW_DEV_PORT
work=$(mktemp -d)
export WIKIGATE_DATA_DIR="$work/data" WIKIGATE_ADMIN="unix/$work/admin.sock|0600" XDG_DATA_HOME="$work/xdg" XDG_CONFIG_HOME="$work/xdg"
gate=http://127.0.0.1:$WIKIGATE_LISTEN_PORT
pid=
trap '[ -z "$pid" ] || { kill $pid 2>/dev/null; wait $pid 2>/dev/null; }; rm -rf "$work"' EXIT

bin=${WIKIGATE_BIN:-}
if [ -z "$bin" ]; then
	timeout 600 go build -o "$work/wikigate" ./cmd/wikigate
	bin=$work/wikigate
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir "$work/root"
for f in samplewiki Caddyfile; do ln -s "$repo/$f" "$work/root/$f"; done
timeout 120 go run ./bench/internal/highlimits rego "$work/root/rego" 1000000

# the 100 cases: the sample wiki's set, then its first 47 cases again
set100=$work/eval100.yaml
awk '
	{ print }
	/^cases:/ { on = 1; next }
	on { rest[++n] = $0 }
	END {
		again = 0
		for (i = 1; i <= n; i++) {
			line = rest[i]
			if (line ~ /^  - /) { # a case starts: "  - id: x" or "  - {id: x, ...}"
				if (++again > 47) break
				if (!sub(/^  - id: [^ ,}]+/, "&-again", line)) sub(/^  - \{id: [^ ,}]+/, "&-again", line)
			}
			print line
		}
	}' evalsets/samplewiki.yaml >"$set100"
cases=$(awk '/^cases:/{on=1; next} on && /^  - /{n++} END{print n}' "$set100")
[ "$cases" = 100 ] || { echo "the bench set has $cases cases, want 100" >&2; exit 1; }

(cd "$work/root" && exec "$bin" run --config Caddyfile) >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 150); do
	curl -fsS --max-time 2 "$gate/healthz" >/dev/null 2>&1 && break
	kill -0 $pid 2>/dev/null || { cat "$work/server.log"; echo "the gate exited" >&2; exit 1; }
	sleep 0.1
done
curl -fsS --max-time 2 "$gate/healthz" >/dev/null || { echo "the gate did not answer in 15s" >&2; exit 1; }

export WIKIGATE_EVAL_AGENT WIKIGATE_EVAL_MAINTAINER
WIKIGATE_EVAL_AGENT=$("$bin" token --agent kunora-coding-agent)
WIKIGATE_EVAL_MAINTAINER=$("$bin" token --human alice --role wiki-maintainer)
command=(wikigate eval --set eval100.yaml --gate "$gate" --json --concurrency "$CONCURRENCY")
start=$(date +%s.%N)
timeout 300 "$bin" eval --set "$set100" --gate "$gate" --json --concurrency "$CONCURRENCY" >"$work/report.json"
end=$(date +%s.%N)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
met=$(awk -v w="$wall" -v t="$TARGET_S" 'BEGIN { print (w <= t) ? "met" : "MISSED" }')

# the summary's figures, read from the report's JSON without a JSON tool
figure() { grep -m1 "\"$1\":" "$work/report.json" | sed -E 's/.*: *([0-9.]+).*/\1/'; }
ms() { printf '%.0f' "$(figure "$1")"; }
fig3() { printf '%.3f' "$(figure "$1")"; }
errors=$(figure errors)
[ "${errors:-1}" = 0 ] || { head -c 3000 "$work/report.json"; echo "$errors case(s) failed at the gate" >&2; exit 1; }
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
when=$(date -u +%Y-%m-%dT%H:%MZ)
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //' || echo unknown)
row="| $when | $commit | $cases | $CONCURRENCY | $wall s | $(ms searchP50Ms) / $(ms searchP95Ms) ms | $(ms askP50Ms) / $(ms askP95Ms) ms | $met |"
history=$(awk '/^## History/{on=1; next} on && /^\| 20/' "$OUT_MD" 2>/dev/null || true)
{
	echo "# \`wikigate eval\`: 100 cases against the development backends"
	echo
	echo "Written by \`bash bench/eval.sh\` (see the script's header). Target: the whole run in"
	echo "$TARGET_S s or less (README \"Measuring answer quality\")."
	echo
	echo "- date: $when; commit: $commit; machine: $(nproc) cores, $cpu; load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "- command: \`${command[*]}\` (tokens for the set's agent and maintainer in the environment)"
	echo "- wall time: **$wall s** for $cases cases (target $TARGET_S s: $met), $(awk -v w="$wall" -v c="$cases" 'BEGIN { printf "%.1f", c / w }') cases/s"
	echo "- search latency p50 $(ms searchP50Ms) ms, p95 $(ms searchP95Ms) ms; ask latency p50 $(ms askP50Ms) ms, p95 $(ms askP95Ms) ms"
	echo "- figures (the sample wiki's cases, 47 of them twice): hit@5 $(fig3 hit5), MRR $(fig3 mrr), citation precision $(fig3 citationPrecision), no-answer recall $(fig3 noAnswerRecall), leaks $(figure leaks)"
	echo
	echo "## History"
	echo
	echo "| date | commit | cases | concurrency | wall | search p50 / p95 | ask p50 / p95 | target |"
	echo "|---|---|---|---|---|---|---|---|"
	[ -z "$history" ] || echo "$history"
	echo "$row"
} >"$OUT_MD.tmp"
mv "$OUT_MD.tmp" "$OUT_MD"
cat "$OUT_MD"
