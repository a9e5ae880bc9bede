#!/usr/bin/env bash
# bench-now.sh: time `runway now` against ccusage on the same large history.
#
# Usage: scripts/bench-now.sh [DIR]
#
# DIR is where the agent history lives (default: a temp dir, removed at
# exit). Unless DIR holds a history written less than MAX_AGE minutes ago,
# `go run ./internal/synth/genhistory` writes one there first: SIZE bytes
# (3.4 GB) of Claude Code and Codex sessions over four months, with one big
# active Claude session (SIZE/16: 212 MB) whose last hour is recent. The
# history ends when it is written, so an older one is rewritten.
#
# Both tools read only that history (CLAUDE_CONFIG_DIR, CODEX_HOME; an empty
# HOME): `runway now --offline` on its cold path (no tray snapshot), with
# the index the run before left in the state folder (second and later
# runs) and without it (a first run, the index removed untimed), and
# `ccusage $CCUSAGE_ARGS` (default "blocks --active --offline": the current
# 5-hour block and its projection, the closest to `runway now`; --offline
# uses ccusage's cached prices, no network). Each runs WARMUP times
# untimed, then RUNS times, interleaved A B A B…, so the page cache is warm
# for both and a noisy machine hurts both alike.
#
# The floor of any tool that re-reads the history is timed beside them: one
# `cat` of every session file (to /dev/null). So are the floors of any
# runway process, which reads nothing on an unchanged history: `runway
# version` (runway's own start-up) and a Go hello-world built the same way
# (any Go program's).
#
# Prints a table (median and p90 wall ms, median user+sys CPU ms, max RSS),
# the ratios of the medians (ccusage over runway, runway over the cat, and
# the same for the two start-ups alone);
# then, unless GO_BENCH=0, BenchmarkEvaluate
# on the same history: the bytes runway read beside the bytes inside its
# window and the history's size.
#
# Environment:
#   SIZE=3.4G  ACTIVE=(SIZE/16)  LONE=1 (only the big session is recent)
#   RUNS=15  WARMUP=3  MAX_AGE=20 (minutes)
#   CCUSAGE=path/to/ccusage   else $NPM_PREFIX/node_modules/.bin/ccusage
#                             (NPM_PREFIX=/tmp/npmtools), installed there
#                             with npm when missing (CCUSAGE_VERSION=20.0.24)
#   CCUSAGE_ARGS="blocks --active --offline"
#   GO_BENCH=1
#
# Needs go, GNU time (/usr/bin/time), and npm unless CCUSAGE is given.
# hyperfine, when installed, adds its own summary of the same commands.

source "$(dirname "$0")/bench-common.sh"

CCUSAGE_VERSION=${CCUSAGE_VERSION:-20.0.24}
CCUSAGE_ARGS=${CCUSAGE_ARGS:-blocks --active --offline}
NPM_PREFIX=${NPM_PREFIX:-/tmp/npmtools}
GO_BENCH=${GO_BENCH:-1}

# find_ccusage sets $ccusage, installing it (with the native binary its
# launcher runs) into NPM_PREFIX when needed.
find_ccusage() {
	ccusage=${CCUSAGE:-$NPM_PREFIX/node_modules/.bin/ccusage}
	if [ -x "$ccusage" ]; then return; fi
	local plat
	case "$(uname -s)-$(uname -m)" in
	Linux-x86_64) plat=linux-x64 ;;
	Linux-aarch64) plat=linux-arm64 ;;
	Darwin-arm64) plat=darwin-arm64 ;;
	Darwin-x86_64) plat=darwin-x64 ;;
	*) echo "no ccusage native package known for $(uname -sm); set CCUSAGE" >&2; exit 1 ;;
	esac
	say "installing ccusage $CCUSAGE_VERSION into $NPM_PREFIX"
	mkdir -p "$NPM_PREFIX"
	npm install --prefix "$NPM_PREFIX" --no-audit --no-fund --loglevel=error \
		"ccusage@$CCUSAGE_VERSION" "@ccusage/ccusage-$plat@$CCUSAGE_VERSION" >&2
}

bench_setup "${1:-}"
find_ccusage
say "ccusage $("$ccusage" --version 2>/dev/null | tail -1)"

read -r -a cc_args <<<"$CCUSAGE_ARGS"
cmd_runway=("$runway" now --offline)
cmd_first=("$runway" now --offline)
prep_first='rm -f "$RUNWAY_STATE_DIR/logs.index"'
cmd_ccusage=("$ccusage" "${cc_args[@]}")
# shellcheck disable=SC2016
cmd_cat=(sh -c 'find "$0" "$1" -name "*.jsonl" -exec cat {} + >/dev/null' "$hist/claude" "$hist/codex")
# The start-up floors: runway's own (a command that reads nothing) and any
# Go program's.
cmd_version=("$runway" version)
cmd_hello=("$hello")

say "runway now says:   $("${cmd_runway[@]}" 2>/dev/null | head -1)"
say "ccusage says:      $("${cmd_ccusage[@]}" 2>/dev/null | grep -v '^\s*$' | head -3 | tr -s ' ' | tr '\n' ' ')"
say "timing ($WARMUP warm-ups, $RUNS runs each, interleaved)"
interleave runway first ccusage cat version hello

echo
echo "history: $history_files files, $((history_bytes / 1000000)) MB, active session $(($(stat -c %s "$active") / 1000000)) MB"
echo
table_head
report runway "runway now --offline (index warm)"
report first "runway now --offline (first run, no index)"
report ccusage "ccusage $CCUSAGE_ARGS"
report cat "cat of the history"
report version "runway version (runway's start-up)"
report hello "a Go hello-world (any Go program's start-up)"
awk -v r="$(median_of runway)" -v f="$(median_of first)" -v c="$(median_of ccusage)" -v k="$(median_of cat)" \
	-v v="$(median_of version)" -v h="$(median_of hello)" 'BEGIN {
	printf "\nccusage / runway (median wall): %.1fx index warm, %.1fx first run\n", c / r, c / f
	printf "runway / cat of the history: %.2f%% index warm, %.2f%% first run\n", 100 * r / k, 100 * f / k
	printf "runway now above runway version: %.1f ms index warm, %.1f ms first run\n", r - v, f - v
	printf "start-up alone: ccusage / runway version %.1fx, ccusage / Go hello-world %.1fx; as a share of the cat: %.2f%% and %.2f%%\n", c / v, c / h, 100 * v / k, 100 * h / k
}'

if command -v hyperfine >/dev/null; then
	echo
	say "hyperfine, same commands"
	hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" \
		"${cmd_runway[*]}" "${cmd_ccusage[*]}" 2>&1 | grep -Ev '^\s*$'
fi

if [ "$GO_BENCH" != 0 ]; then
	echo
	say "BenchmarkEvaluate on the same history (bytes read; x- are time ratios to the baselines)"
	(cd "$repo" && RUNWAY_BENCH_HISTORY=$hist go test -run '^$' \
		-bench 'BenchmarkEvaluate/^(baseline-window-read|baseline-full-read|evaluate|evaluate-indexed)$' -benchtime 5x . |
		grep -E '^Benchmark')
fi
