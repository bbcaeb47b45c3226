#!/usr/bin/env bash
# bench/stores.sh: what the shared stores cost. In one run, the same calls
# against a gate with the embedded stores (sessions in memory, feedback in
# bbolt, rate limits in process) and a gate with the shared ones (sessions
# and rate limits in Redis, feedback in PostgreSQL), written to
# bench/STORES.md. See bench/README.md.
#
#   bash bench/stores.sh
#
# Environment (optional): BENCH_DURATION (per load run, default 10s),
# BENCH_WARMUP (per target, default 2s). It needs wrk, redis-server and
# PostgreSQL's initdb/postgres (Debian: wrk redis-server postgresql); as
# root it runs PostgreSQL as the postgres user. Everything listens on
# 127.0.0.1:182xx, every step is time-bounded, and it exits non-zero if a
# load run saw an error or a non-2xx.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/bench/out/stores
RESULTS=$ROOT/bench/STORES.md
DURATION=${BENCH_DURATION:-10s}
WARMUP=${BENCH_WARMUP:-2s}
STANDIN=127.0.0.1:18290
RAGFLOW=127.0.0.1:18291
REDIS_PORT=18292
PG_PORT=18293
# The gates: embedded / shared stores, each on the policy without limits
# (B, C, S, F) and on the policy with limits too high to reach (L).
EMB=127.0.0.1:18280
SHR=127.0.0.1:18281
EMB_L=127.0.0.1:18282
SHR_L=127.0.0.1:18283
COMMAND="bash bench/stores.sh"
for v in BENCH_DURATION BENCH_WARMUP; do
	if [[ -n ${!v:-} ]]; then COMMAND="$v=${!v} $COMMAND"; fi
done

BENCH_NAME=stores
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

# --- processes we start, stopped on exit (by pid only, newest first) --------

PGDIR=""
cleanup() {
	local i pid
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
		pid=${PIDS[i]}
		kill "$pid" 2>/dev/null || true # postgres: smart shutdown, its clients (the gates) are gone by then
		if ! timeout 15 tail --pid="$pid" -f /dev/null 2>/dev/null; then
			echo "stores: process $pid did not stop within 15s; killing it" >&2
			kill -9 "$pid" 2>/dev/null || true
		fi
	done
	PIDS=()
	[[ -n $PGDIR ]] && rm -rf "$PGDIR"
	PGDIR=""
}
trap cleanup EXIT

for tool in go curl awk timeout wrk redis-server redis-cli; do
	command -v "$tool" >/dev/null || die "$tool is required (Debian: wrk redis-server postgresql)"
done
PGBIN=$(dirname "$(command -v initdb 2>/dev/null || ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | tail -1)")
[[ -x $PGBIN/initdb && -x $PGBIN/postgres ]] || die "PostgreSQL's initdb and postgres are required (Debian: postgresql)"

mkdir -p "$OUT"
rm -f "$OUT"/*.log "$OUT"/*.out "$OUT"/*.txt "$OUT"/*.db "$OUT"/*.Caddyfile
for addr in $EMB $SHR $EMB_L $SHR_L $STANDIN $RAGFLOW 127.0.0.1:$REDIS_PORT 127.0.0.1:$PG_PORT; do
	port_free "$addr"
done

echo "stores: building"
timeout 600 go build -o "$OUT/wikigate" ./cmd/wikigate
timeout 300 go build -o "$OUT/standin" ./bench/standin

export_bench_env

# The team's policy without limits, and with every limit at 10^9 a window:
# L counts what checking the budgets costs on calls that stay under them.
go run ./bench/internal/unlimited rego "$OUT/policy"
go run ./bench/internal/highlimits rego "$OUT/policy-limits" 1000000000

# --- the servers --------------------------------------------------------------------

start_postgres() {
	PGDIR=$(mktemp -d /tmp/wikigate-bench-pg-XXXXXX)
	local as=()
	if [[ $(id -u) -eq 0 ]]; then
		chown postgres: "$PGDIR"
		as=(setpriv --reuid=postgres --regid=postgres --init-groups)
	fi
	timeout 120 "${as[@]}" "$PGBIN/initdb" -D "$PGDIR/data" -U wikigate --auth=trust -E UTF8 >"$OUT/initdb.out" 2>&1 ||
		die "initdb: $(tail -3 "$OUT/initdb.out")"
	# PostgreSQL's defaults (fsync and synchronous_commit on): a commit
	# waits for the disk, as in production.
	start postgres "${as[@]}" "$PGBIN/postgres" -D "$PGDIR/data" -p $PG_PORT -h 127.0.0.1 -k "$PGDIR" -c max_connections=100
	for _ in $(seq 1 150); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$PG_PORT") 2>/dev/null; then return 0; fi
		sleep 0.2
	done
	die "postgres did not start: $(tail -3 "$OUT/postgres.out")"
}

# gate_config NAME ADDR POLICY embedded|shared: the bench gate of
# bench/Caddyfile (same logging, audit on) with the chosen stores.
gate_config() {
	local stores
	if [[ $4 == shared ]]; then
		stores="sessions {
			store redis
		}
		redis {
			url redis://127.0.0.1:$REDIS_PORT
			key_prefix bench:
		}
		feedback {
			store postgres
		}
		postgres {
			dsn postgres://wikigate@127.0.0.1:$PG_PORT/postgres?sslmode=disable
		}"
	else
		stores="feedback {
			path $OUT/$1-feedback.db
		}"
	fi
	cat >"$OUT/$1.Caddyfile" <<CADDY
{
	admin off
	auto_https off
	skip_install_trust
	grace_period 1s
	log default {
		output file $OUT/$1-caddy.log
		level WARN
		exclude http.handlers.wikigate.audit
	}
	log audit {
		output file $OUT/$1-audit.log
		format json
		include http.handlers.wikigate.audit
	}
}
http://$2 {
	bind 127.0.0.1
	wikigate {
		site_mode public-read
		policy_dir $3
		agent_jwt {
			issuer wikigate-dev
			audience wikigate
			algorithms HS256
			hmac_secret {env.WIKIGATE_DEV_JWT_SECRET}
		}
		meilisearch {
			url http://$STANDIN
			api_key {env.WIKIGATE_MEILI_KEY}
			index wiki_pages
		}
		ragflow {
			url http://$RAGFLOW
			api_key {env.WIKIGATE_RAGFLOW_KEY}
		}
		$stores
	}
}
CADDY
	# its own data directory: a second `run` on one in use is refused
	start "$1" env WIKIGATE_DATA_DIR="$OUT/$1-data" "$OUT/wikigate" run --config "$OUT/$1.Caddyfile" --adapter caddyfile
}

start standin "$OUT/standin" -addr "$STANDIN" -size 4096
start devbackends env WIKIGATE_DATA_DIR="$OUT/devbackends-data" "$OUT/wikigate" run --config bench/devbackends.Caddyfile --adapter caddyfile
# No persistence: what a session costs on the wire, not on this disk.
start redis redis-server --port $REDIS_PORT --bind 127.0.0.1 --save "" --appendonly no --dir "$OUT"
start_postgres
wait_http "http://$STANDIN/health"
wait_http "http://$RAGFLOW/"
timeout 10 redis-cli -p $REDIS_PORT ping >/dev/null || die "redis-server did not start"
gate_config emb $EMB "$OUT/policy" embedded
gate_config shr $SHR "$OUT/policy" shared
gate_config emb_l $EMB_L "$OUT/policy-limits" embedded
gate_config shr_l $SHR_L "$OUT/policy-limits" shared
for addr in $EMB $SHR $EMB_L $SHR_L; do wait_http "http://$addr/healthz"; done

TOKEN=$(timeout 30 "$OUT/wikigate" wikigate token --agent kunora-coding-agent --ttl 1h)
B_PATH=/agent/tools/search
B_BODY='{"question":"agent memory","limit":10}'
C_PATH=/agent/tools/ask
C_BODY='{"question":"How do I configure agent memory?"}'
F_PATH=/agent/tools/create_feedback
F_BODY='{"eventType":"qa_no_answer","question":"What is the payroll schedule?"}'
S_BODY='{"question":"And where is that setting stored?"}'

# session ADDR: creates an agent session; prints "PATH HEADERS" for S.
session() {
	local reply id tok
	reply=$(curl -s --max-time 30 -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" \
		-d '{"question":"How do I configure agent memory?"}' "http://$1/answer/sessions")
	id=$(sed -n 's/.*"sessionId":"\([^"]*\)".*/\1/p' <<<"$reply")
	tok=$(sed -n 's/.*"sessionToken":"\([^"]*\)".*/\1/p' <<<"$reply")
	[[ -n $id && -n $tok ]] || die "no session from $1: $(head -c 300 <<<"$reply")"
	echo "/answer/sessions/$id/turns X-Session-Token: $tok"
}
read -r S_EMB_PATH S_EMB_HEADERS <<<"$(session $EMB)"
read -r S_SHR_PATH S_SHR_HEADERS <<<"$(session $SHR)"

smoke() { # smoke NAME ADDR PATH BODY [HEADERS]
	local status hdr=()
	[[ -n ${5:-} ]] && hdr=(-H "$5")
	status=$(curl -s -o "$OUT/smoke_$1.txt" -w '%{http_code}' --max-time 30 -X POST -H 'Content-Type: application/json' \
		-H "Authorization: Bearer $TOKEN" "${hdr[@]}" -d "$4" "http://$2$3")
	[[ $status == 200 ]] || die "smoke $1: HTTP $status: $(head -c 300 "$OUT/smoke_$1.txt")"
}
smoke B-emb $EMB $B_PATH "$B_BODY"
smoke B-shr $SHR $B_PATH "$B_BODY"
smoke C-shr $SHR $C_PATH "$C_BODY"
smoke S-shr $SHR "$S_SHR_PATH" "$S_BODY" "$S_SHR_HEADERS"
smoke F-shr $SHR $F_PATH "$F_BODY"
smoke L-shr $SHR_L $B_PATH "$B_BODY"
[[ $(redis-cli -p $REDIS_PORT --scan --pattern 'bench:session:*' | wc -l) -ge 1 ]] || die "the shared gate's session is not in Redis"
[[ $(redis-cli -p $REDIS_PORT --scan --pattern 'rate:bench:rl:*' | wc -l) -ge 1 ]] || die "the shared gate's limits are not in Redis"

# --- load runs ------------------------------------------------------------------------

# wrk_run CONNS DURATION URL BODY [HEADERS]: prints wrk's BENCH line.
wrk_run() {
	local threads=$(($1 < 2 ? 1 : 2)) secs=${2%s}
	BENCH_BODY=$4 BENCH_TOKEN=$TOKEN BENCH_HEADERS=${5:-} timeout $((secs + 30)) \
		wrk -t"$threads" -c"$1" -d"$2" --timeout 5s -s bench/report.lua "$3" |
		grep '^BENCH ' || die "wrk produced no summary for $3"
}

declare -A R # R[run,store,conns,metric]
measure() { # measure RUN STORE CONNS ADDR PATH BODY [HEADERS]
	local key="$1,$2,$3" line errors
	line=$(wrk_run 32 "$WARMUP" "http://$4$5" "$6" "${7:-}")
	[[ $(field non2xx "$line") -eq 0 ]] || FAILED+=("warm-up of $1 $2: $line")
	line=$(wrk_run "$3" "$DURATION" "http://$4$5" "$6" "${7:-}")
	errors=$(($(field connect "$line") + $(field read "$line") + $(field write "$line") + $(field status "$line") + $(field timeout "$line")))
	R[$key,requests]=$(field requests "$line")
	R[$key,rps]=$(awk -v n="${R[$key,requests]}" -v d="$(field duration_us "$line")" 'BEGIN {printf "%.0f", n / (d / 1e6)}')
	R[$key,p50]=$(field p50_us "$line")
	R[$key,p99]=$(field p99_us "$line")
	R[$key,non2xx]=$(field non2xx "$line")
	R[$key,errors]=$errors
	echo "stores: $1 $2 c=$3: ${R[$key,rps]} req/s, p50 ${R[$key,p50]} µs, p99 ${R[$key,p99]} µs, non-2xx ${R[$key,non2xx]}, errors $errors"
	if [[ ${R[$key,requests]} -eq 0 || $errors -ne 0 || ${R[$key,non2xx]} -ne 0 ]]; then
		FAILED+=("$1 $2 c=$3: ${R[$key,requests]} requests, ${R[$key,non2xx]} non-2xx, $errors errors")
	fi
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for conns in 1 32; do
	measure B embedded $conns $EMB $B_PATH "$B_BODY"
	measure B shared $conns $SHR $B_PATH "$B_BODY"
	measure C embedded $conns $EMB $C_PATH "$C_BODY"
	measure C shared $conns $SHR $C_PATH "$C_BODY"
	measure L embedded $conns $EMB_L $B_PATH "$B_BODY"
	measure L shared $conns $SHR_L $B_PATH "$B_BODY"
	measure S embedded $conns $EMB "$S_EMB_PATH" "$S_BODY" "$S_EMB_HEADERS"
	measure S shared $conns $SHR "$S_SHR_PATH" "$S_BODY" "$S_SHR_HEADERS"
	measure F embedded $conns $EMB $F_PATH "$F_BODY"
	measure F shared $conns $SHR $F_PATH "$F_BODY"
done
FEEDBACK_COUNT=$(curl -s --max-time 10 -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" \
	-d "$F_BODY" "http://$SHR$F_PATH" | sed -n 's/.*"count":\([0-9]*\).*/\1/p')
cleanup

# --- STORES.md --------------------------------------------------------------------------

write_results() {
	local commit dirty run conns label
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	dirty=$(git status --porcelain 2>/dev/null | grep -c . || true)
	cat <<MD
# What the shared stores cost

Generated by \`bench/stores.sh\`; see [README.md](README.md#shared-stores-benchstoressh).

- **Date:** $(date -u '+%Y-%m-%d %H:%M UTC'), commit \`$commit\`$( ((dirty)) && echo " with $dirty uncommitted changes in the tree")
- **Command:** \`$COMMAND\` (from the repository root)
- **Machine:** $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(uname -sr), $(go version | cut -d' ' -f3), $(redis-server --version | awk '{print "Redis " substr($3, 3)}'), $("$PGBIN/postgres" --version | sed 's/^postgres (PostgreSQL) /PostgreSQL /'); load average at start $LOAD_START. wrk, the stand-in, the development RAGFlow, Redis, PostgreSQL and four gates share these cores, and the machine is shared with other work: compare embedded and shared within one run, not runs of different days.
- **Gates:** two processes of the same binary and configuration (bench/Caddyfile's gate: audit on, Caddy log at WARN), one with the embedded stores (sessions in memory, feedback in bbolt, limits in process), one with the shared ones (\`sessions { store redis }\` and the limits in Redis without persistence, \`feedback { store postgres }\` with PostgreSQL's defaults: fsync and synchronous_commit on); Redis and PostgreSQL on loopback.
- **Runs:** $DURATION each after a $WARMUP warm-up at 32 connections; wrk 1 thread for 1 connection, 2 threads for 32.

| run | what the stores do per call |
|---|---|
| B: \`/agent/tools/search\` → stand-in | nothing (policy without limits) |
| C: \`/agent/tools/ask\` → dev RAGFlow | nothing (policy without limits) |
| L: B on the policy with every limit at 10^9 | check and take the agent's \`search-minute\` budget: in process, or one Redis script |
| S: a turn in an agent's session (\`/answer/sessions/{id}/turns\`) → dev RAGFlow | read the session, append the turn (Redis: GET, then a compare-and-set script) |
| F: \`/agent/tools/create_feedback\`, one gap, no idempotency key | merge an occurrence into one open record (bbolt transaction, or a PostgreSQL transaction with the row lock); every call hits the same record, the worst case |

## Load runs

| run | conns | store | req/s | p50 µs | p99 µs | requests | non-2xx | errors |
|---|---:|---|---:|---:|---:|---:|---:|---:|
MD
	for run in B C L S F; do
		for conns in 1 32; do
			for store in embedded shared; do
				local k="$run,$store,$conns"
				echo "| $run | $conns | $store | ${R[$k,rps]} | ${R[$k,p50]} | ${R[$k,p99]} | ${R[$k,requests]} | ${R[$k,non2xx]} | ${R[$k,errors]} |"
			done
		done
	done
	cat <<MD

## p50 the shared stores add (shared − embedded)

| run | 1 connection | 32 connections |
|---|---:|---:|
MD
	for run in B C L S F; do
		echo "| $run | $((R[$run,shared,1,p50] - R[$run,embedded,1,p50])) µs | $((R[$run,shared,32,p50] - R[$run,embedded,32,p50])) µs |"
	done
	cat <<MD

After the runs the shared gate's one record counted ${FEEDBACK_COUNT:-?} reports (every F call on the shared gate, warm-ups included, plus the smoke call and this one).
MD
	failed_section
}

write_results >"$RESULTS"
echo "stores: wrote $RESULTS"
die_if_failed
