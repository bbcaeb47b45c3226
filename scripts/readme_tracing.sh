#!/usr/bin/env bash
# Tries docs/operators.md "Tracing" as written: each command of its shell
# block starts the gate (the built binary, WIKIGATE_BIN, else built here,
# as ./wikigate in a scratch folder with the repo's files linked in) with
# the OpenTelemetry variables the line sets, on non-default ports, in
# turn; a tiny OTLP/HTTP collector (scripts/otlpsink, built here) prints
# every span it receives. For each line the gate must log that tracing is
# on, and an agent's ask sent with a W3C traceparent must reach the
# collector as the page says: the call's server span "POST
# /agent/tools/ask" under the caller's span, with the "retrieval ragflow"
# and "chat ragflow-default" child spans in the same trace (three spans),
# no question text in them (no log_questions), and the development RAGFlow
# must have been sent a traceparent of that trace.
# What the page writes as a placeholder is filled in here: the collector
# http://collector:4318 is the collector's loopback address (port 24110).
# The second line keeps the SDK's default endpoint, https://localhost:4318:
# the collector listens there when 4318 is free, over HTTPS with a
# certificate made here for localhost, which the line's gate is told to
# trust with OTEL_EXPORTER_OTLP_CERTIFICATE (the page names it); when 4318
# is in use only that line's start is checked, and the script says so.
# Only OTEL_BSP_SCHEDULE_DELAY=200 (ms) is added to the environment (the
# gate's span recorder reads OTEL_BSP_*, as the page says), so spans arrive within a second
# rather than five. Every wait is bounded; the servers stop on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
. scripts/readme_lib.sh
readme_ports 24100
sink_addr=127.0.0.1:24110
readme_free $sink_addr
readme_scratch
readme_bin
readme_root Caddyfile samplewiki
cp -r rego "$work/root/rego" # a copy: the policy loader does not follow a linked folder
export WIKIGATE_DATA_DIR="$work/root/data"
mkdir -m 0700 "$WIKIGATE_DATA_DIR"
go build -o "$work/otlpsink" ./scripts/otlpsink
for v in $(env | grep -o '^OTEL_[A-Z_]*'); do unset "$v"; done
export OTEL_BSP_SCHEDULE_DELAY=200
# The development RAGFlow's key (docs/docs-sites.md "Streaming" reads its log with it).
ragflow_key=$(readme_section docs/docs-sites.md Streaming | grep -o 'Bearer ragflow-[A-Za-z0-9]*' | head -1 | cut -d' ' -f2)
[ -n "$ragflow_key" ] || { echo "FAIL: docs/docs-sites.md 'Streaming' no longer shows the development RAGFlow's key" >&2; exit 1; }
pids=()
stop() { # stop PID: ends it and waits for it
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
trap 'for p in "${pids[@]}"; do stop "$p"; done; rm -rf "$work"' EXIT

page=docs/operators.md
block=$(readme_section $page Tracing | readme_sh_blocks)
[ -n "$block" ] || { echo "FAIL: $page 'Tracing' has no shell block" >&2; exit 1; }
mapfile -t lines < <(grep -v -e '^#' -e '^$' <<<"$block")
[ ${#lines[@]} = 2 ] || { echo "FAIL: $page 'Tracing' no longer has the two commands this script knows: $block" >&2; exit 1; }
grep -qF 'http://collector:4318' <<<"${lines[0]}" || { echo "FAIL: the first line no longer names http://collector:4318: ${lines[0]}" >&2; exit 1; }
grep -q '^OTEL_TRACES_EXPORTER=otlp ' <<<"${lines[1]}" || { echo "FAIL: the second line no longer sets OTEL_TRACES_EXPORTER=otlp alone: ${lines[1]}" >&2; exit 1; }

# sink ADDR LOG [OTLPSINK-FLAGS]: a collector on ADDR printing its spans to LOG.
sink() {
	"$work/otlpsink" -listen "$1" "${@:3}" >"$2" 2>"$2.err" &
	pids+=($!)
	for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null && return 0; sleep 0.1; done
	cat "$2.err"
	echo "FAIL: the collector did not listen on $1" >&2
	exit 1
}

# try N LINE SPANS: runs the page's line N in the scratch folder, as an
# operator pastes it; checks the start, then an ask's spans in SPANS.
try() {
	local n=$1 line=$2 spans=$3 log="$work/gate$1.log" pid trace parent got
	echo "== $page 'Tracing' line $n: $line"
	# bash -c execs a lone command: $! is the gate.
	(cd "$work/root" && exec bash -c "$line") >"$log" 2>&1 &
	pid=$!
	pids+=($pid)
	readme_wait_healthz "$WIKIGATE_LISTEN" $pid "$log" 600 # the policy's start-up checks take long on a busy machine
	has "line $n: the log says tracing is on" "$(cat "$log")" "tracing on: exporting spans over OTLP"
	[ -n "$spans" ] || { stop $pid; return 0; }
	trace=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	parent=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	TOKEN=$("$bin" token --agent kunora-coding-agent 2>/dev/null)
	has "line $n: the ask answers" "$(curl -sS --max-time 30 -w ' HTTP %{http_code}' "http://$WIKIGATE_LISTEN/agent/tools/ask" \
		-H "Authorization: Bearer $TOKEN" -H "traceparent: 00-$trace-$parent-01" \
		-d '{"question":"How do I configure agent memory?"}')" ' HTTP 200'
	for _ in $(seq 1 100); do # the batch processor exports every 200 ms; the call's span ends last
		grep -qF "trace=$trace " "$spans" && grep "trace=$trace " "$spans" | grep -qF 'name="POST /agent/tools/ask"' && break
		sleep 0.1
	done
	got=$(grep -F "trace=$trace " "$spans" || true)
	[ -n "$got" ] || { echo "no span of trace $trace; the collector's and the gate's errors:"; cat "$spans.err"; grep -iE 'error|otlp|otel' "$log" | cut -c1-400; } >&2
	echo "$got" | cut -c1-300
	call=$(grep -F 'name="POST /agent/tools/ask"' <<<"$got" || true)
	has "line $n: the call's server span" "$call" "kind=SPAN_KIND_SERVER"
	has "line $n: it continues the caller's traceparent" "$call" "parent=$parent "
	has "line $n: it is the wikigate service's" "$call" "service=wikigate "
	has "line $n: its route" "$call" "http.route=/agent/tools/ask"
	has "line $n: the decision on it" "$call" "wikigate.decision.allow=true"
	id=$(grep -o ' id=[0-9a-f]*' <<<"$call" | head -1 | cut -d= -f2)
	has "line $n: the retrieval is a child span" "$(grep -F 'name="retrieval ragflow"' <<<"$got")" "parent=$id "
	has "line $n: the model call is a child span" "$(grep -F 'name="chat ragflow-default"' <<<"$got")" "parent=$id "
	if [ "$(grep -c . <<<"$got")" = 3 ]; then echo "ok   line $n: an ask is three spans"; else echo "FAIL line $n: an ask made $(grep -c . <<<"$got") spans, want 3" >&2; fail=1; fi
	lacks "line $n: no question text in the spans" "$got" "configure agent memory"
	has "line $n: the development RAGFlow got a traceparent of the trace" \
		"$(curl -sS --max-time 10 "http://$WIKIGATE_RAGFLOW_DEV/_dev/requests" -H "Authorization: Bearer $ragflow_key")" "00-$trace-"
	stop $pid
}

sink $sink_addr "$work/spans1.log"
try 1 "${lines[0]//http:\/\/collector:4318/http://$sink_addr}" "$work/spans1.log"
if (exec 3<>/dev/tcp/127.0.0.1/4318) 2>/dev/null; then
	echo "note: 127.0.0.1:4318 is in use here: line 2's spans are not checked, only its start"
	try 2 "${lines[1]}" ""
else
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
		-addext subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1 -keyout "$work/otlp.key" -out "$work/otlp.crt" 2>/dev/null
	sink 127.0.0.1:4318 "$work/spans2.log" -tls-cert "$work/otlp.crt" -tls-key "$work/otlp.key"
	export OTEL_EXPORTER_OTLP_CERTIFICATE="$work/otlp.crt"
	try 2 "${lines[1]}" "$work/spans2.log"
fi
exit $fail
