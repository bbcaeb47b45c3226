#!/usr/bin/env bash
# bench/askcost.sh: the ask's budget line alone (issue 24 point 7): run A
# (plain reverse_proxy to the stand-in Meilisearch), run C (the gate's ask,
# its RAGFlow the stand-in RAGFlow of bench/standin -ragflow-record, which
# replays what the development RAGFlow answered first) and run D (the same
# ask with the development RAGFlow itself in the loop, on the same cores) at
# 32 connections, back to back in the same Caddy process, repeated in
# mirrored orders, with the load average after each repeat. Per run: the
# measured process's CPU per request, its CPU use (100% = one core) and its
# context switches per request (voluntary / involuntary, summed over its
# threads). Minutes instead of bench/run.sh's quarter hour; it writes no
# RESULTS.md (README, What an ask costs).
#
#   bash bench/askcost.sh
#
# Before measuring it asks once through C and once through D and stops
# when the two answers differ beyond their ids and times.
#
# Environment (all optional): BENCH_DURATION (each measured run, default
# 8s), BENCH_WARMUP (unrecorded run before each, default 2s),
# BENCH_REPEATS (default 6), BENCH_PORT_BASE (default 18200: ports
# BASE+80, +81, +82, +90, +91, +93, +19 for the admin API),
# BENCH_OUT_DIR (default bench/out/askcost), BENCH_PROFILE (1: after the
# repeats, a CPU profile of one more run of BENCH_PROFILE_TARGET, C by
# default, A or D, through the admin API's /debug/pprof/profile; top
# entries in OUT/profile_TARGET.txt and profile_TARGET_cum.txt).
# Everything listens on 127.0.0.1; every run is time-bounded.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${BENCH_OUT_DIR:-$ROOT/bench/out/askcost}
DURATION=${BENCH_DURATION:-8s}
WARMUP=${BENCH_WARMUP:-2s}
REPEATS=${BENCH_REPEATS:-6}
PORT_BASE=${BENCH_PORT_BASE:-18200}
PROFILE=${BENCH_PROFILE:-0}
PROFILE_TARGET=${BENCH_PROFILE_TARGET:-C}
[[ -z ${BENCH_ASK_NOSTREAM:-} ]] || { echo "askcost: BENCH_ASK_NOSTREAM (run N) was removed; see bench/README.md, What an ask costs" >&2; exit 2; }
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || { echo "askcost: BENCH_REPEATS must be a positive number" >&2; exit 2; }
[[ $PORT_BASE =~ ^[1-9][0-9]*$ ]] && ((PORT_BASE <= 65400)) || { echo "askcost: BENCH_PORT_BASE must be a number up to 65400" >&2; exit 2; }
[[ $PROFILE_TARGET =~ ^[ACD]$ ]] || { echo "askcost: BENCH_PROFILE_TARGET must be A, C or D" >&2; exit 2; }
GATE=127.0.0.1:$((PORT_BASE + 80))
PROXY=127.0.0.1:$((PORT_BASE + 81))
GATE_DEV=127.0.0.1:$((PORT_BASE + 82))
STANDIN=127.0.0.1:$((PORT_BASE + 90))
RAGFLOW_STANDIN=127.0.0.1:$((PORT_BASE + 91))
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
for addr in $GATE $PROXY $GATE_DEV $STANDIN $RAGFLOW_STANDIN $RAGFLOW $ADMIN; do port_free "$addr"; done
rm -f "$OUT/failed.txt" "$OUT"/profile_*

echo "askcost: building"
BIN=$OUT/wikigate
timeout 600 go build -o "$BIN" ./cmd/wikigate
timeout 300 go build -o "$OUT/standin" ./bench/standin

export_bench_env
export BENCH_GATE=$GATE BENCH_GATE_DEV=$GATE_DEV BENCH_PROXY=$PROXY BENCH_ADMIN=$ADMIN BENCH_RAGFLOW_STANDIN=$RAGFLOW_STANDIN
export WIKIGATE_BENCH_POLICY="$OUT/policy"
rm -rf "$WIKIGATE_BENCH_POLICY"
go run ./bench/internal/unlimited rego "$WIKIGATE_BENCH_POLICY"

start standin "$OUT/standin" -addr "$STANDIN" -size 4096
start ragstandin "$OUT/standin" -addr "$RAGFLOW_STANDIN" -ragflow-record "http://$RAGFLOW"
start devbackends env WIKIGATE_DATA_DIR="$OUT/devbackends-data" "$BIN" run --config bench/devbackends.Caddyfile --adapter caddyfile
start caddy env WIKIGATE_DATA_DIR="$OUT/caddy-data" "$BIN" run --config bench/Caddyfile --adapter caddyfile
wait_http "http://$STANDIN/health"
wait_http "http://$RAGFLOW/"
wait_http "http://$RAGFLOW_STANDIN/api/v1/system/healthz"
wait_http "http://$GATE/healthz"
wait_http "http://$GATE_DEV/healthz"
wait_http "http://$PROXY/health"

TOKEN=$(timeout 30 "$BIN" token --agent kunora-coding-agent --ttl 2h)
HITS=$(curl -s --max-time 5 -X POST "http://$STANDIN/indexes/wiki_pages/search" -d '{}' | grep -o '"_rankingScore"' | wc -l)
# The same requests as bench/run.sh's A, C and D.
A_PATH=/indexes/wiki_pages/search
A_BODY='{"q":"agent memory","filter":"version = \"main\" AND status IN [\"approved\"] AND ((project = \"kunora-kgent\" AND pathPrefixes IN [\"publish/system/components/kunora-kgent\"]))","limit":'$HITS',"attributesToRetrieve":["id","path","url","title","project","version","status"],"attributesToCrop":["content"],"cropLength":30,"showRankingScore":true}'
C_PATH=/agent/tools/ask
C_BODY='{"question":"How do I configure agent memory?"}'

# The stand-in's answer is the development RAGFlow's: one ask each way
# (the stand-in's first records it), compared without ids and times.
same_answer "$GATE" "$GATE_DEV" "$C_PATH" "$C_BODY" "$TOKEN" "$OUT/answer"

TICKS=$(getconf CLK_TCK)
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
# switches PID: the voluntary and involuntary context switches of all the
# process's threads (/proc/PID/status counts its first thread only).
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {v += $2} /^nonvoluntary_ctxt_switches/ {n += $2} END {print v + 0, n + 0}'; }
wrk_line() { # wrk_line DURATION ADDR PATH BODY [TOKEN]: wrk's BENCH line, 32 connections
	local secs=${1%s}
	BENCH_BODY=$4 BENCH_TOKEN=${5:-} BENCH_HEADERS='' timeout $((secs + 30)) \
		wrk -t2 -c32 -d"$1" --timeout 5s -s bench/report.lua "http://$2$3" | grep '^BENCH ' || true
}
# measure BACKEND_PID ADDR PATH BODY [TOKEN]: warm up, then one run;
# prints the measured process's CPU per request in µs, its CPU use in % of
# one core, its voluntary and involuntary context switches per request, the
# requests a second and the backend process's CPU per request in µs
# (nothing when no request completed), and notes a run with failures in
# $OUT/failed.txt (it runs in a subshell).
measure() {
	local line before after requests bad sw0 sw1 t0 t1 back=$1 b0 b1
	shift
	wrk_line "$WARMUP" "$@" >/dev/null
	before=$(cpu_ticks "$caddy_PID") sw0=$(switches "$caddy_PID") t0=$(date +%s.%N) b0=$(cpu_ticks "$back")
	line=$(wrk_line "$DURATION" "$@")
	after=$(cpu_ticks "$caddy_PID") sw1=$(switches "$caddy_PID") t1=$(date +%s.%N) b1=$(cpu_ticks "$back")
	requests=$(field requests "$line")
	[[ -n $requests && $requests -gt 0 ]] || return 0
	bad=$(($(field non2xx "$line") + $(field status "$line") + $(field timeout "$line") + $(field connect "$line") + $(field read "$line") + $(field write "$line")))
	((bad == 0)) || echo "http://$1$2: $bad of $requests requests failed or timed out" >>"$OUT/failed.txt"
	awk -v t=$((after - before)) -v hz="$TICKS" -v n="$requests" -v s0="$sw0" -v s1="$sw1" -v t0="$t0" -v t1="$t1" -v bt=$((b1 - b0)) 'BEGIN {
		split(s0, a, " "); split(s1, b, " ")
		printf "%.1f %.0f %.2f %.2f %.0f %.1f", t / hz * 1e6 / n, t / hz / (t1 - t0) * 100, (b[1] - a[1]) / n, (b[2] - a[2]) / n, n / (t1 - t0), bt / hz * 1e6 / n}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {m = int((NR + 1) / 2); printf "%.2f", (NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2)}'; }
medf() { printf "$1" "$(median "${@:2}")"; } # medf FORMAT V...: the median, formatted
range() { printf '%s–%s' "$(printf '%s\n' "$@" | sort -g | head -1)" "$(printf '%s\n' "$@" | sort -g | tail -1)"; }
run_target() { # run_target A|C|D: measure's line for that target
	case $1 in
	A) measure "$standin_PID" "$PROXY" "$A_PATH" "$A_BODY" ;;
	C) measure "$ragstandin_PID" "$GATE" "$C_PATH" "$C_BODY" "$TOKEN" ;;
	D) measure "$devbackends_PID" "$GATE_DEV" "$C_PATH" "$C_BODY" "$TOKEN" ;;
	esac
}

targets=(A C D)
echo "askcost: $REPEATS repeats of ${targets[*]} at 32 connections, $DURATION each after $WARMUP; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "askcost: per run: CPU µs a request, the measured process's CPU use (% of one core), its context switches a request (voluntary / involuntary), requests a second, the backend's CPU µs a request (A: the stand-in Meilisearch, C: the stand-in RAGFlow, D: the development RAGFlow)"
CA=() DA=()
declare -A ALL=()
for ((rep = 1; rep <= REPEATS; rep++)); do
	order=("${targets[@]}")
	if ((rep % 2 == 0)); then order=(D C A); fi
	declare -A V=() U=() VS=() NS=() RPS=() BK=()
	for t in "${order[@]}"; do
		read -r V[$t] U[$t] VS[$t] NS[$t] RPS[$t] BK[$t] <<<"$(run_target "$t")" || true
		[[ -n ${V[$t]:-} ]] || die "run $t completed no request"
		ALL[$t,V]+="${V[$t]} " ALL[$t,U]+="${U[$t]} " ALL[$t,VS]+="${VS[$t]} " ALL[$t,NS]+="${NS[$t]} " ALL[$t,RPS]+="${RPS[$t]} " ALL[$t,BK]+="${BK[$t]} "
	done
	CA+=("$(ratio "${V[C]}" "${V[A]}")")
	DA+=("$(ratio "${V[D]}" "${V[A]}")")
	line="repeat $rep (${order[*]}):"
	for t in A C D; do line+=" $t ${V[$t]} µs ${U[$t]}% ${VS[$t]} / ${NS[$t]} ${RPS[$t]}/s backend ${BK[$t]} µs;"; done
	echo "askcost: $line C / A ${CA[-1]}, D / A ${DA[-1]}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "askcost: medians over the repeats:"
for t in A C D; do
	# shellcheck disable=SC2086
	echo "askcost:   $t CPU $(medf %.1f ${ALL[$t,V]}) µs a request, CPU use $(medf %.0f ${ALL[$t,U]})%, context switches a request $(medf %.2f ${ALL[$t,VS]}) voluntary / $(medf %.2f ${ALL[$t,NS]}) involuntary, $(medf %.0f ${ALL[$t,RPS]}) requests a second, the backend's CPU $(medf %.1f ${ALL[$t,BK]}) µs a request"
done
echo "askcost: C / A median $(median "${CA[@]}") (range $(range "${CA[@]}")), goal ≤ 3; D / A (the development RAGFlow in the loop) median $(median "${DA[@]}") (range $(range "${DA[@]}")); load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# profile_run: a CPU profile of the gate process during one more run of
# PROFILE_TARGET, through the admin API.
profile_run() {
	local secs=${DURATION%s} path=$C_PATH body=$C_BODY token=$TOKEN addr
	case $PROFILE_TARGET in
	A) addr=$PROXY path=$A_PATH body=$A_BODY token= ;;
	C) addr=$GATE ;;
	D) addr=$GATE_DEV ;;
	esac
	echo "askcost: profiling $PROFILE_TARGET for ${secs}s"
	wrk_line "$((secs + 4))s" "$addr" "$path" "$body" "$token" >"$OUT/profile_wrk.txt" &
	local wrk_pid=$!
	sleep 2
	curl -s --max-time $((secs + 20)) -o "$OUT/profile_$PROFILE_TARGET.pb.gz" "http://$ADMIN/debug/pprof/profile?seconds=$secs"
	wait "$wrk_pid" || die "the profiled run failed"
	go tool pprof -top -nodecount=40 "$BIN" "$OUT/profile_$PROFILE_TARGET.pb.gz" >"$OUT/profile_$PROFILE_TARGET.txt" 2>&1
	go tool pprof -top -cum -nodecount=80 "$BIN" "$OUT/profile_$PROFILE_TARGET.pb.gz" >"$OUT/profile_${PROFILE_TARGET}_cum.txt" 2>&1
	echo "askcost: $(grep -m1 'Total samples' "$OUT/profile_$PROFILE_TARGET.txt"); top entries in $OUT/profile_$PROFILE_TARGET.txt"
}
if [[ $PROFILE == 1 ]]; then profile_run; fi
if [[ -s $OUT/failed.txt ]]; then
	sed 's/^/askcost: /' "$OUT/failed.txt" >&2
	die "some runs had failed requests; their CPU per request is not comparable"
fi
