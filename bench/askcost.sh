#!/usr/bin/env bash
# bench/askcost.sh: the ask's budget line alone (issue 24 point 7): run A
# (plain reverse_proxy) and run C (the gate's ask) at 32 connections, back
# to back in the same Caddy process, repeated in mirrored orders, with the
# load average after each repeat. Minutes instead of bench/run.sh's quarter
# hour; it writes no RESULTS.md (README, What an ask costs).
#
#   bash bench/askcost.sh
#
# Environment (all optional): BENCH_DURATION (each measured run, default
# 8s), BENCH_WARMUP (unrecorded run before each, default 2s),
# BENCH_REPEATS (default 6), BENCH_PORT_BASE (default 18200: ports
# BASE+80, +81, +82, +90, +93, +19 for pprof), BENCH_OUT_DIR (default
# bench/out/askcost), BENCH_ASK_NOSTREAM (1: also run N, C's ask on a
# second gate site whose ragflow block says `stream off`, so RAGFlow
# answers one JSON body instead of an SSE stream).
# Everything listens on 127.0.0.1; every run is time-bounded.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${BENCH_OUT_DIR:-$ROOT/bench/out/askcost}
DURATION=${BENCH_DURATION:-8s}
WARMUP=${BENCH_WARMUP:-2s}
REPEATS=${BENCH_REPEATS:-6}
PORT_BASE=${BENCH_PORT_BASE:-18200}
NOSTREAM=${BENCH_ASK_NOSTREAM:-0}
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || { echo "askcost: BENCH_REPEATS must be a positive number" >&2; exit 2; }
[[ $PORT_BASE =~ ^[1-9][0-9]*$ ]] && ((PORT_BASE <= 65400)) || { echo "askcost: BENCH_PORT_BASE must be a number up to 65400" >&2; exit 2; }
GATE=127.0.0.1:$((PORT_BASE + 80))
PROXY=127.0.0.1:$((PORT_BASE + 81))
NOSTREAM_GATE=127.0.0.1:$((PORT_BASE + 82))
STANDIN=127.0.0.1:$((PORT_BASE + 90))
RAGFLOW=127.0.0.1:$((PORT_BASE + 93))
ADMIN=127.0.0.1:$((PORT_BASE + 19))

BENCH_NAME=askcost
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

cleanup() {
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do timeout 10 tail --pid="$pid" -f /dev/null 2>/dev/null || kill -9 "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

for tool in go curl awk timeout wrk; do
	command -v "$tool" >/dev/null || die "$tool is required (wrk: Debian package wrk)"
done
mkdir -p "$OUT"
for addr in $GATE $PROXY $NOSTREAM_GATE $STANDIN $RAGFLOW $ADMIN; do port_free "$addr"; done
rm -f "$OUT/failed.txt"

echo "askcost: building"
BIN=$OUT/wikigate
timeout 600 go build -o "$BIN" ./cmd/wikigate
timeout 300 go build -o "$OUT/standin" ./bench/standin

# bench/Caddyfile as run.sh uses it; with BENCH_ASK_NOSTREAM=1 plus a copy
# of its gate site on NOSTREAM_GATE whose RAGFlow calls are not streamed.
CADDYFILE=$OUT/Caddyfile
cp bench/Caddyfile "$CADDYFILE"
if [[ $NOSTREAM == 1 ]]; then
	awk -v addr="$NOSTREAM_GATE" '
		/^http:\/\/\{\$BENCH_GATE/ {site = 1; print ""; print "http://" addr " {"; next}
		site {print}
		site && /api_key \{env.WIKIGATE_RAGFLOW_KEY\}/ {print "\t\t\tstream off"}
	' bench/Caddyfile >>"$CADDYFILE"
	grep -q 'stream off' "$CADDYFILE" || die "could not derive the stream-off gate from bench/Caddyfile"
fi

export_bench_env
export BENCH_GATE=$GATE BENCH_PROXY=$PROXY BENCH_ADMIN=$ADMIN
export WIKIGATE_BENCH_POLICY="$OUT/policy"
rm -rf "$WIKIGATE_BENCH_POLICY"
go run ./bench/internal/unlimited rego "$WIKIGATE_BENCH_POLICY"

start standin "$OUT/standin" -addr "$STANDIN" -size 4096
start devbackends env WIKIGATE_DATA_DIR="$OUT/devbackends-data" "$BIN" run --config bench/devbackends.Caddyfile --adapter caddyfile
start caddy env WIKIGATE_DATA_DIR="$OUT/caddy-data" "$BIN" run --config "$CADDYFILE" --adapter caddyfile
wait_http "http://$STANDIN/health"
wait_http "http://$RAGFLOW/"
wait_http "http://$GATE/healthz"
wait_http "http://$PROXY/health"

TOKEN=$(timeout 30 "$BIN" token --agent kunora-coding-agent --ttl 2h)
HITS=$(curl -s --max-time 5 -X POST "http://$STANDIN/indexes/wiki_pages/search" -d '{}' | grep -o '"_rankingScore"' | wc -l)
# The same requests as bench/run.sh's A and C.
A_PATH=/indexes/wiki_pages/search
A_BODY='{"q":"agent memory","filter":"version = \"main\" AND status IN [\"approved\"] AND ((project = \"kunora-kgent\" AND pathPrefixes IN [\"publish/system/components/kunora-kgent\"]))","limit":'$HITS',"attributesToRetrieve":["id","path","url","title","project","version","status"],"attributesToCrop":["content"],"cropLength":30,"showRankingScore":true}'
C_PATH=/agent/tools/ask
C_BODY='{"question":"How do I configure agent memory?"}'

TICKS=$(getconf CLK_TCK)
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
wrk_line() { # wrk_line DURATION ADDR PATH BODY [TOKEN]: wrk's BENCH line, 32 connections
	local secs=${1%s}
	BENCH_BODY=$4 BENCH_TOKEN=${5:-} BENCH_HEADERS='' timeout $((secs + 30)) \
		wrk -t2 -c32 -d"$1" --timeout 5s -s bench/report.lua "http://$2$3" | grep '^BENCH ' || true
}
# measure ADDR PATH BODY [TOKEN]: warm up, then one run; prints the
# process's CPU per request in µs (nothing when no request completed) and
# notes a run with failures in $OUT/failed.txt (it runs in a subshell).
measure() {
	local line before after requests bad
	wrk_line "$WARMUP" "$@" >/dev/null
	before=$(cpu_ticks "$caddy_PID")
	line=$(wrk_line "$DURATION" "$@")
	after=$(cpu_ticks "$caddy_PID")
	requests=$(field requests "$line")
	[[ -n $requests && $requests -gt 0 ]] || return 0
	bad=$(($(field non2xx "$line") + $(field status "$line") + $(field timeout "$line") + $(field connect "$line") + $(field read "$line") + $(field write "$line")))
	((bad == 0)) || echo "http://$1$2: $bad of $requests requests failed or timed out" >>"$OUT/failed.txt"
	awk -v t=$((after - before)) -v hz="$TICKS" -v n="$requests" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {m = int((NR + 1) / 2); printf "%.2f", (NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2)}'; }

targets=(A C)
if [[ $NOSTREAM == 1 ]]; then targets=(A C N); fi
echo "askcost: $REPEATS repeats of ${targets[*]} at 32 connections, $DURATION each after $WARMUP; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
CA=() NA=()
for ((rep = 1; rep <= REPEATS; rep++)); do
	order=("${targets[@]}")
	if ((rep % 2 == 0)); then order=($(printf '%s\n' "${targets[@]}" | tac)); fi
	declare -A V=()
	for t in "${order[@]}"; do
		case $t in
		A) V[A]=$(measure "$PROXY" "$A_PATH" "$A_BODY") ;;
		C) V[C]=$(measure "$GATE" "$C_PATH" "$C_BODY" "$TOKEN") ;;
		N) V[N]=$(measure "$NOSTREAM_GATE" "$C_PATH" "$C_BODY" "$TOKEN") ;;
		esac
		[[ -n ${V[$t]} ]] || die "run $t completed no request"
	done
	CA+=("$(ratio "${V[C]}" "${V[A]}")")
	line="repeat $rep (${order[*]}): A ${V[A]} µs, C ${V[C]} µs, C / A ${CA[-1]}"
	if [[ $NOSTREAM == 1 ]]; then
		NA+=("$(ratio "${V[N]}" "${V[A]}")")
		line+=", N ${V[N]} µs, N / A ${NA[-1]}"
	fi
	echo "askcost: $line; load average $(cut -d' ' -f1-3 /proc/loadavg)"
done
summary="C / A median $(median "${CA[@]}") (range $(printf '%s\n' "${CA[@]}" | sort -g | head -1)–$(printf '%s\n' "${CA[@]}" | sort -g | tail -1))"
if [[ $NOSTREAM == 1 ]]; then
	summary+=", N / A median $(median "${NA[@]}") (range $(printf '%s\n' "${NA[@]}" | sort -g | head -1)–$(printf '%s\n' "${NA[@]}" | sort -g | tail -1))"
fi
echo "askcost: $summary; goal C / A ≤ 3"
if [[ -s $OUT/failed.txt ]]; then
	sed 's/^/askcost: /' "$OUT/failed.txt" >&2
	die "some runs had failed requests; their CPU per request is not comparable"
fi
