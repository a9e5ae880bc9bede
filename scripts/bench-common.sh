# shellcheck shell=bash
# Shared by bench-now.sh and bench-statusline.sh (source it, do not run it):
# a generated history, a runway binary, an isolated environment and an
# interleaved timer.

set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

SIZE=${SIZE:-3.4G}
ACTIVE=${ACTIVE:-}
LONE=${LONE:-}
RUNS=${RUNS:-15}
WARMUP=${WARMUP:-3}
MAX_AGE=${MAX_AGE:-20}

say() { printf '== %s\n' "$*" >&2; }

# bench_setup [DIR]: sets $work (scratch, removed at exit), $hist (the
# history, generated or reused), $runway (a fresh build), $hello (a Go
# program that only starts, built alike) and exports the environment both
# tools run in.
bench_setup() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/runway-bench.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	hist=${1:-$work/history}
	mkdir -p "$hist"
	hist=$(cd "$hist" && pwd)

	if [ ! -f "$hist/history.json" ] || [ -n "$(find "$hist/history.json" -mmin +"$MAX_AGE")" ]; then
		df -h "$(dirname "$hist")" >&2
		say "generating a $SIZE history into $hist"
		rm -rf "$hist/claude" "$hist/codex" "$hist/state" "$hist/history.json"
		local flags=(-out "$hist" -size "$SIZE")
		[ -n "$ACTIVE" ] && flags+=(-active "$ACTIVE")
		[ -n "$LONE" ] && flags+=(-lone)
		(cd "$repo" && go run ./internal/synth/genhistory "${flags[@]}") >&2
	else
		say "reusing the history in $hist (written less than $MAX_AGE minutes ago)"
	fi
	history_bytes=$(du -sb "$hist/claude" "$hist/codex" | awk '{s += $1} END {printf "%.0f", s}')
	history_files=$(find "$hist/claude" "$hist/codex" -name '*.jsonl' | wc -l)
	active=$(sed -n 's/.*"active": "\(.*\)".*/\1/p' "$hist/history.json")
	active_session=$(sed -n 's/.*"active_session": "\(.*\)".*/\1/p' "$hist/history.json")
	say "history: $history_files files, $((history_bytes / 1000000)) MB; active session $((
		$(stat -c %s "$active") / 1000000)) MB"

	# Built as the release is (.goreleaser.yaml): no cgo on Linux and
	# Windows (a static binary starts faster than one that loads libc),
	# symbols stripped.
	say "building runway as released"
	runway=$work/runway
	local cgo=0
	[ "$(uname -s)" = Darwin ] && cgo=1
	(cd "$repo" && CGO_ENABLED=$cgo go build -trimpath -ldflags "-s -w" -o "$runway" ./cmd/runway)

	# The floor of any Go program on this machine: one that only starts,
	# prints a line and exits, built the same way.
	mkdir -p "$work/hello"
	printf 'module hello\n\ngo 1.26\n' >"$work/hello/go.mod"
	printf 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hello\\n") }\n' >"$work/hello/main.go"
	hello=$work/hello/hello
	(cd "$work/hello" && CGO_ENABLED=$cgo go build -trimpath -ldflags "-s -w" -o "$hello" .)

	# go keeps its caches where it had them; the tools get an empty home.
	export GOPATH GOCACHE GOMODCACHE
	GOPATH=$(go env GOPATH) GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE)

	# Nothing of the user's: an empty home, runway's state a copy of the
	# history's (the Claude samples a statusline would have recorded).
	mkdir -p "$work/home"
	cp -r "$hist/state" "$work/state"
	export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.local/state
	export XDG_CACHE_HOME=$work/home/.cache RUNWAY_STATE_DIR=$work/state TZ=UTC
	export CLAUDE_CONFIG_DIR=$hist/claude CODEX_HOME=$hist/codex
	unset RUNWAY_CONFIG
}

# measure OUT PREPARE CMD...: one run of CMD (stdout dropped), after PREPARE
# (untimed; ":" for none), appending "wall_ms cpu_ms rss_kb" to OUT.
measure() {
	local out=$1 prep=$2
	shift 2
	eval "$prep"
	# The clock is read without starting a process (bash 5's
	# EPOCHREALTIME, in microseconds): two `date` runs around each command
	# added about 10 ms to every row on a 2-core virtual machine.
	local t0 t1
	if [ -n "${EPOCHREALTIME:-}" ]; then
		t0=${EPOCHREALTIME/[.,]/}
	else
		t0=$(($(date +%s%N) / 1000))
	fi
	/usr/bin/time -f '%U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" <"${STDIN:-/dev/null}" ||
		{ echo "failed: $*" >&2; cat "$work/stderr" >&2; return 1; }
	if [ -n "${EPOCHREALTIME:-}" ]; then
		t1=${EPOCHREALTIME/[.,]/}
	else
		t1=$(($(date +%s%N) / 1000))
	fi
	awk -v w=$((t1 - t0)) '{printf "%.2f %.1f %d\n", w / 1000, ($1 + $2) * 1000, $3}' "$work/time" >>"$out"
}

# interleave NAME... : runs each NAME's command in turn, WARMUP times
# untimed then RUNS times timed, A B C A B C…, so a noisy machine hurts
# each alike. A NAME's command is in ${cmd_NAME[@]}, its untimed
# preparation in $prep_NAME, its stdin file in $stdin_NAME.
interleave() {
	local i name
	for name in "$@"; do : >"$work/$name.runs"; done
	for ((i = 0; i < WARMUP + RUNS; i++)); do
		for name in "$@"; do
			local prep="prep_$name" in="stdin_$name" out=$work/$name.runs
			eval "local -a cmd=(\"\${cmd_$name[@]}\")"
			[ "$i" -lt "$WARMUP" ] && out=$work/warmup
			STDIN=${!in:-/dev/null} measure "$out" "${!prep:-:}" "${cmd[@]}"
		done
	done
}

# stats NAME: "median_wall p90_wall median_cpu max_rss_mb" of NAME's runs.
stats() {
	local f=$work/$1.runs
	local n
	n=$(wc -l <"$f")
	local wall cpu rss
	wall=$(cut -d' ' -f1 "$f" | sort -g | awk -v n="$n" '{v[NR] = $1} END {m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2; p = v[int(0.9 * n + 0.999)]; printf "%.1f %.1f", m, p}')
	cpu=$(cut -d' ' -f2 "$f" | sort -g | awk -v n="$n" '{v[NR] = $1} END {m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2; printf "%.0f", m}')
	rss=$(cut -d' ' -f3 "$f" | sort -g | tail -1 | awk '{printf "%.1f", $1 / 1024}')
	echo "$wall $cpu $rss"
}

# report NAME LABEL: one table row.
report() {
	local s
	read -r -a s <<<"$(stats "$1")"
	printf '| %-44s | %9s | %9s | %9s | %10s |\n' "$2" "${s[0]}" "${s[1]}" "${s[2]}" "${s[3]}"
}

table_head() {
	printf '| %-44s | %9s | %9s | %9s | %10s |\n' "command ($RUNS runs each, interleaved)" "median ms" "p90 ms" "CPU ms" "max RSS MB"
	printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" "-----------" "-----------" "-----------" "------------"
}

median_of() { stats "$1" | cut -d' ' -f1; }
