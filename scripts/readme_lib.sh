# Sourced by the README scripts (scripts/readme_*.sh, scripts/smoke.sh):
# what each of them needs before it runs a page's examples. The examples
# live in README.md (the first command, the ports, Try it) and in docs/
# (every other walkthrough); the scripts read them from there, so a page
# cannot drift from what CI runs. Run from the repo root (each script cds
# there first).

# readme_section FILE TITLE: the section "## TITLE" of FILE, heading
# included, up to the next "## " heading (its "### " subsections in it).
readme_section() {
	awk -v want="## $2" '/^## /{on=($0 == want)} on' "$1"
}

# readme_sh_blocks: the ```sh blocks of stdin, fences removed, in order.
readme_sh_blocks() {
	awk '/^```sh$/{inb=1; next} /^```$/{inb=0; next} inb'
}

# readme_ports BASE: the gate on 127.0.0.1:BASE and its development
# Meilisearch and RAGFlow on BASE+1 and BASE+2, unless WIKIGATE_LISTEN,
# WIKIGATE_MEILI_DEV or WIKIGATE_RAGFLOW_DEV already say otherwise; stops
# when something already listens on one of them (the checks would test it).
readme_ports() {
	export WIKIGATE_LISTEN=${WIKIGATE_LISTEN:-127.0.0.1:$1}
	export WIKIGATE_MEILI_DEV=${WIKIGATE_MEILI_DEV:-127.0.0.1:$(($1 + 1))}
	export WIKIGATE_RAGFLOW_DEV=${WIKIGATE_RAGFLOW_DEV:-127.0.0.1:$(($1 + 2))}
	readme_free "$WIKIGATE_LISTEN" "$WIKIGATE_MEILI_DEV" "$WIKIGATE_RAGFLOW_DEV"
}

# readme_free ADDR...: stops when something listens on one of them.
readme_free() {
	local addr
	for addr in "$@"; do
		if (exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}") 2>/dev/null; then
			echo "$addr is in use; stop what listens there or set WIKIGATE_LISTEN/_MEILI_DEV/_RAGFLOW_DEV" >&2
			exit 1
		fi
	done
}

# readme_scratch: a scratch directory in $work, holding the gate's data
# directory and Caddy's storage, so nothing is left in the repo or $HOME.
readme_scratch() {
	work=$(mktemp -d)
	export WIKIGATE_DATA_DIR="$work/data" XDG_DATA_HOME="$work/xdg" XDG_CONFIG_HOME="$work/xdg"
}

# readme_bin: $bin, the absolute path of the binary under test:
# WIKIGATE_BIN (as .ci/run passes it), else built here into $work.
readme_bin() {
	bin=${WIKIGATE_BIN:-}
	if [ -z "$bin" ]; then
		go build -o "$work/wikigate" ./cmd/wikigate
		bin="$work/wikigate"
	fi
	bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
}

# readme_root FILE...: $work/root, a folder where a page's blocks run as
# written at the repo root: the named repo files linked in, ./wikigate the
# binary under test.
readme_root() {
	local f
	mkdir "$work/root"
	for f in "$@"; do ln -s "$PWD/$f" "$work/root/$f"; done
	ln -s "$bin" "$work/root/wikigate"
}

# readme_wait_healthz ADDR PID LOG [TENTHS]: waits (100 tenths of a second
# by default) until http://ADDR/healthz answers; stops with the server's log
# when the process PID exits or the time is up.
readme_wait_healthz() {
	local i
	for i in $(seq 1 "${4:-100}"); do
		curl -fsS --max-time 2 "http://$1/healthz" >/dev/null 2>&1 && return 0
		kill -0 "$2" 2>/dev/null || { cat "$3"; echo "FAIL: the gate exited" >&2; exit 1; }
		sleep 0.1
	done
	cat "$3"
	echo "FAIL: http://$1/healthz did not answer in $((${4:-100} / 10))s" >&2
	exit 1
}

# has NAME TEXT PATTERN / lacks NAME TEXT PATTERN: PATTERN (a fixed string)
# must be / must not be in TEXT; a failure sets fail=1 and the run goes on.
fail=0
has() {
	if grep -qF -- "$3" <<<"$2"; then echo "ok   $1"; else echo "FAIL $1: no '$3' in: ${2:0:800}" >&2; fail=1; fi
}
lacks() {
	if grep -qF -- "$3" <<<"$2"; then echo "FAIL $1: '$3' in: ${2:0:800}" >&2; fail=1; else echo "ok   $1"; fi
}
