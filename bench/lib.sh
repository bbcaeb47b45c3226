# bench/lib.sh: the shell functions bench/run.sh and bench/stores.sh share,
# sourced by both after they set BENCH_NAME (the prefix of die's message)
# and OUT (where start logs). Each script keeps its own cleanup: run.sh
# stops its processes together, stores.sh one by one, newest first, so that
# PostgreSQL outlives the gates that use it.
# shellcheck shell=bash

die() {
	echo "$BENCH_NAME: FAILED: $*" >&2
	exit 1
}

PIDS=()
start() { # start NAME COMMAND...: in the background, logging to $OUT/NAME.out; NAME_PID holds its pid
	local name=$1
	shift
	"$@" >"$OUT/$name.out" 2>&1 &
	PIDS+=("$!")
	eval "${name}_PID=$!"
}

wait_http() { # wait_http URL: until URL answers at all (any status), at most 30s
	for _ in $(seq 1 150); do
		if curl -s -o /dev/null --max-time 1 "$1"; then return 0; fi
		sleep 0.2
	done
	die "nothing answers at $1 after 30s (see $OUT/*.out)"
}

port_free() { # port_free HOST:PORT: dies if something listens there
	if (exec 3<>"/dev/tcp/${1%:*}/${1#*:}") 2>/dev/null; then
		die "$1 is already in use; stop whatever listens there"
	fi
}

random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

# export_bench_env: what bench/Caddyfile, bench/devbackends.Caddyfile and
# the gates read: where the stand-in and the development RAGFlow listen,
# and fresh secrets for this run (the agent JWT secret, the backends' keys).
export_bench_env() {
	export BENCH_OUT=$OUT BENCH_STANDIN=$STANDIN BENCH_RAGFLOW=$RAGFLOW
	export WIKIGATE_DEV_JWT_SECRET="bench-$(random_hex 32)"
	export WIKIGATE_MEILI_KEY="bench-meili-key"
	WIKIGATE_RAGFLOW_KEY="ragflow-bench$(random_hex 16)"
	export WIKIGATE_RAGFLOW_KEY WIKIGATE_RAGFLOW_DEV_KEY=$WIKIGATE_RAGFLOW_KEY
}

field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; } # field NAME LINE: NAME=number in wrk's BENCH line

# FAILED lists the load runs that saw an error or a non-2xx (each script
# fills it); failed_section prints it as the results' last section, and
# die_if_failed makes the script exit non-zero after writing them.
FAILED=()
failed_section() {
	if ((${#FAILED[@]})); then
		echo
		echo "## FAILED"
		echo
		printf -- '- %s\n' "${FAILED[@]}"
	fi
}
die_if_failed() {
	if ((${#FAILED[@]})); then
		die "$(printf '%s; ' "${FAILED[@]}")"
	fi
}

# same_answer ADDR1 ADDR2 PATH BODY TOKEN PREFIX: one ask through each gate
# address (PREFIX.1.json, PREFIX.2.json); dies unless both are 200 and the
# same apart from ids and times. run.sh and askcost.sh check with it that
# the stand-in RAGFlow's answer (run C) is the development RAGFlow's (D).
same_answer() {
	local i addr status
	i=0
	for addr in "$1" "$2"; do
		i=$((i + 1))
		status=$(curl -s -o "$6.$i.json" -w '%{http_code}' --max-time 30 -X POST -H 'Content-Type: application/json' \
			-H "Authorization: Bearer $5" -d "$4" "http://$addr$3")
		[[ $status == 200 ]] || die "ask through $addr: HTTP $status: $(head -c 300 "$6.$i.json")"
	done
	local strip='s/"(requestId|sessionId|id|created|createdAt|expiresAt|generatedAt)":("[^"]*"|[0-9.]+)/"\1":_/g'
	diff <(sed -E "$strip" "$6.1.json") <(sed -E "$strip" "$6.2.json") >"$6.diff" ||
		die "the answers through $1 and $2 differ beyond ids and times ($6.diff): $(head -c 600 "$6.diff")"
}
