#!/usr/bin/env bash
# bench/ingest.sh: what `wikigate ingest` costs on a wiki of 1,000 pages.
# Generates a Docusaurus tree (bench/internal/ingestgen: 1,000 Markdown and
# MDX pages over ten projects, fixed seed), starts the development
# Meilisearch and RAGFlow empty (bench/ingest.Caddyfile), and times, with
# the built binary: the first load, a re-run with no change, a re-run after
# touching every file, and a re-run after one page changed. Writes
# bench/INGEST.md. Targets (issue 23): first load <= 30 s, no-change re-run
# <= 2 s on these machines. Not a test: the numbers are recorded, the
# script fails only when a run fails or a re-run changes something it
# should not.
#
#   bash bench/ingest.sh            # BENCH_PAGES=1000 by default
#   nice -n -15 bash bench/ingest.sh   # on a busy shared machine (as root)
#
# Listens on 127.0.0.1:18391 (Meilisearch) and :18392 (RAGFlow); stops
# what it started on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/bench/out/ingest
RESULTS=$ROOT/bench/INGEST.md
PAGES=${BENCH_PAGES:-1000}
export BENCH_OUT=$OUT BENCH_MEILI=127.0.0.1:18391 BENCH_RAGFLOW=127.0.0.1:18392
export WIKIGATE_MEILI_KEY=bench-ingest-master-key WIKIGATE_RAGFLOW_KEY=ragflow-benchingest00000000000000000000000
export WIKIGATE_MEILI_URL=http://$BENCH_MEILI WIKIGATE_RAGFLOW_URL=http://$BENCH_RAGFLOW
for addr in "$BENCH_MEILI" "$BENCH_RAGFLOW"; do
	if (exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}") 2>/dev/null; then
		echo "$addr is in use" >&2
		exit 1
	fi
done
rm -rf "$OUT" && mkdir -p "$OUT"
go build -o "$OUT/wikigate" ./cmd/wikigate
go run ./bench/internal/ingestgen -out "$OUT/tree" -pages "$PAGES"

"$OUT/wikigate" run --config bench/ingest.Caddyfile --adapter caddyfile >"$OUT/backends.out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
	curl -fsS --max-time 1 "$WIKIGATE_MEILI_URL/health" >/dev/null 2>&1 && break
	kill -0 $pid 2>/dev/null || { cat "$OUT/backends.out"; exit 1; }
	sleep 0.1
done

# run NAME: one timed ingest; its report goes to $OUT/NAME.txt, its wall
# seconds to $secs and the ingest process's CPU seconds (user + system) to
# $cpusecs: on a loaded machine the wall time mostly measures the load.
run() {
	local TIMEFORMAT='%R %U %S' times
	times=$({ time timeout 600 "$OUT/wikigate" ingest --src "$OUT/tree/site" --map "$OUT/tree/wiki-map.yaml" \
		--catalog "$OUT/catalog.json" >"$OUT/$1.txt" 2>&1; } 2>&1) || { cat "$OUT/$1.txt" >&2; exit 1; }
	secs=$(awk '{ printf "%.2f", $1 }' <<<"$times")
	cpusecs=$(awk '{ printf "%.2f", $2 + $3 }' <<<"$times")
	summary=$(grep -E '^(meilisearch|ragflow):' "$OUT/$1.txt" | tr '\n' ';' | sed 's/;$//; s/;/; /')
	echo "$1: ${secs}s (ingest CPU ${cpusecs}s)  $summary"
}
# want NAME PATTERN: the run's report must have PATTERN for both backends.
want() {
	[ "$(grep -cF -- "$2" "$OUT/$1.txt")" = 2 ] || { echo "FAIL $1: want '$2' from both backends" >&2; cat "$OUT/$1.txt" >&2; exit 1; }
}

load=$(cut -d' ' -f1 /proc/loadavg)
uptime_start=$(uptime | sed 's/^ *//')
run first; first=$secs; first_cpu=$cpusecs; first_sum=$summary
want first "$PAGES added, 0 changed, 0 removed"
run rerun; rerun=$secs; rerun_cpu=$cpusecs; rerun_sum=$summary
want rerun "0 added, 0 changed, 0 removed, $PAGES unchanged"
find "$OUT/tree/site" -type f -exec touch {} +
run touched; touched=$secs; touched_cpu=$cpusecs; touched_sum=$summary
want touched "0 added, 0 changed, 0 removed, $PAGES unchanged"
printf '\nOne more sentence, for the benchmark.\n' >>"$OUT/tree/site/docs/project-3/area-3/page-3.md"
run onepage; onepage=$secs; onepage_cpu=$cpusecs; onepage_sum=$summary
want onepage "0 added, 1 changed, 0 removed"

verdict() { awk -v s="$1" -v t="$2" 'BEGIN { print (s <= t) ? "met" : "MISSED" }'; }
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
{
	echo "# Ingest benchmark"
	echo
	echo "\`bash bench/ingest.sh\` at $(git rev-parse --short HEAD 2>/dev/null || echo "${BENCH_COMMIT:-?}") on $(date -u +%Y-%m-%d), $cpu, $(nproc) cores,"
	echo "load $load when the first run started, $(cut -d' ' -f1 /proc/loadavg) at the write-up (uptime: $uptime_start),"
	echo "run at niceness $(nice) (\`nice -n -15 bash bench/ingest.sh\` lends the runs CPU other"
	echo "processes of a shared machine would take, as far as its scheduler honours it; 0 is an"
	echo "ordinary run). $PAGES generated pages"
	echo "(bench/internal/ingestgen: a Docusaurus tree, one page of four MDX), the built binary,"
	echo "the development Meilisearch and RAGFlow started empty in one other process. Wall time"
	echo "of each \`wikigate ingest\` run, both backends, and the CPU time of the ingest process"
	echo "alone (the backends' is not counted). A load above the core count inflates wall time:"
	echo "read the targets against a run on an idle machine."
	echo
	echo "| run | seconds | ingest CPU s | target (wall) | reports |"
	echo "|---|---|---|---|---|"
	echo "| first load | $first | $first_cpu | 30 ($(verdict "$first" 30)) | $first_sum |"
	echo "| re-run, no change | $rerun | $rerun_cpu | 2 ($(verdict "$rerun" 2)) | $rerun_sum |"
	echo "| re-run after touching every file | $touched | $touched_cpu | 2 ($(verdict "$touched" 2)) | $touched_sum |"
	echo "| re-run after one page changed | $onepage | $onepage_cpu | | $onepage_sum |"
	echo
	echo "Where the time goes (pprof of the development backends through Caddy's admin"
	echo "/debug/pprof, and of the ingest process): before 0d0d854 a first load took ~100 s, and"
	echo "89 % of the development RAGFlow's CPU was reindex (IDF and chunk norms over every"
	echo "chunk) run after each parsed document, so O(pages x chunks); it now runs once per parse"
	echo "request. The ingest process uses 0.5 to 1.2 s of CPU per run, mostly goldmark parsing"
	echo "the pages (now on every core; the command's GC runs at 400 %, a quarter less CPU), and"
	echo "loads both backends at once. A run that changes"
	echo "nothing makes, besides reading the tree, one listing per backend (Meilisearch: the"
	echo "index and one documents fetch; RAGFlow: the datasets and each owned dataset's"
	echo "documents, --concurrency at a time) and no other call. On this 2-core machine the"
	echo "wall time of a short run is mostly the load: compare the CPU column."
	echo
	echo "Earlier: at 35c1ef9 (before 0d0d854), load 17.75, niceness 0: first load 100.96 s,"
	echo "no-change re-run 3.39 s (ingest CPU 1.18 s and 0.69 s). At d7fd16d, load 27.51, niceness"
	echo "0: 30.50 s and 12.23 s (ingest CPU 1.57 s and 0.93 s). At 86b9812 (before the ingest"
	echo "command's GC setting), load 22.87, niceness -15: 8.56 s and 3.86 s (1.35 s and 0.95 s)."
} >"$RESULTS"
cat "$RESULTS"
