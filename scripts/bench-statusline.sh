#!/usr/bin/env bash
# bench-statusline.sh: the cost of one `runway statusline` call, as Claude
# Code makes it after every message, on a large history.
#
# Usage: scripts/bench-statusline.sh [DIR]
#
# DIR holds the history as for bench-now.sh (generated there when missing
# or older than MAX_AGE minutes; default a temp dir). The statusline gets a
# typical Claude Code stdin (the active session, its model, cost and
# rate_limits) and is timed, each call a new process:
#
#   fresh-snapshot  a running tray wrote its snapshot in the state folder
#                   seconds ago (refreshed, untimed, before each call): the
#                   statusline records the sample and renders that snapshot
#   recent          no tray, but another session's call computed a snapshot
#                   a moment ago (restamped, untimed): the call reuses it
#   cold            no tray: it computes the snapshot from the logs, as
#                   `runway now` does (offline), with the index the call
#                   before left in the state folder
#   first           no tray and no index: the first call on a machine
#   version         `runway version`: the process start-up alone, the floor
#   hello           a Go program that only starts, built alike: any Go
#                   program's floor on this machine
#
# and, when ccusage is found ($CCUSAGE or $NPM_PREFIX/node_modules/.bin),
# `ccusage statusline --offline` with the same stdin, with its cache (its
# default, refreshed every second) and with --no-cache.
#
# Prints median and p90 wall ms, median user+sys CPU ms and max RSS of each,
# interleaved RUNS times after WARMUP untimed runs; then how far each
# statusline row is above `runway version` (the process start-up) and
# ccusage's ratio to the call with a tray snapshot.
#
# Environment: SIZE=3.4G ACTIVE= LONE= RUNS=15 WARMUP=3 MAX_AGE=20
# CCUSAGE= NPM_PREFIX=/tmp/npmtools

source "$(dirname "$0")/bench-common.sh"
NPM_PREFIX=${NPM_PREFIX:-/tmp/npmtools}

bench_setup "${1:-}"

# Claude Code's statusline input for the active session, its windows as
# the history's account has them now.
window() { # CLASS FIELD: the newest Claude sample's field in the state log
	grep "\"window\":\"$1\"" "$hist/state/samples.jsonl" | tail -1 | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"]*\).*/\1/p"
}
used5=$(window 5h used_percent) reset5=$(date -d "$(window 5h resets_at)" +%s)
usedw=$(window weekly used_percent) resetw=$(date -d "$(window weekly resets_at)" +%s)
cat >"$work/stdin.json" <<EOF
{"session_id":"$active_session","transcript_path":"$active","cwd":"/home/dev/src/big-monorepo","model":{"id":"claude-opus-4-5-20251101","display_name":"Opus 4.5"},"workspace":{"current_dir":"/home/dev/src/big-monorepo","project_dir":"/home/dev/src/big-monorepo"},"version":"2.1.328","output_style":{"name":"default"},"cost":{"total_cost_usd":3.41,"total_duration_ms":2201233,"total_api_duration_ms":748211,"total_lines_added":412,"total_lines_removed":93},"exceeds_200k_tokens":false,"context_window":{"total_input_tokens":140214,"total_output_tokens":9207,"context_window_size":200000},"rate_limits":{"five_hour":{"used_percentage":$used5,"resets_at":$reset5},"seven_day":{"used_percentage":$usedw,"resets_at":$resetw}}}
EOF

# The tray's snapshot, as a running engine writes it (`runway serve`, the
# tray's engine without a desktop: it names the settings it was made for,
# and the statusline uses only such a snapshot), restamped to the present
# before each call so it is fresh (SnapshotFresh is 10 s).
rm -f "$RUNWAY_STATE_DIR/snapshot.json"
"$runway" serve --offline --listen 127.0.0.1:0 >/dev/null 2>&1 &
serve_pid=$!
for _ in $(seq 100); do
	[ -s "$RUNWAY_STATE_DIR/snapshot.json" ] && break
	sleep 0.1
done
kill "$serve_pid" && wait "$serve_pid" 2>/dev/null || true
cp "$RUNWAY_STATE_DIR/snapshot.json" "$work/snapshot.tmpl"
fresh_snapshot() {
	sed "0,/\"at\": *\"[^\"]*\"/s//\"at\":\"$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)\"/" \
		"$work/snapshot.tmpl" >"$RUNWAY_STATE_DIR/.snapshot.tmp"
	mv "$RUNWAY_STATE_DIR/.snapshot.tmp" "$RUNWAY_STATE_DIR/snapshot.json"
}

# Without a tray, a statusline call leaves the snapshot it computed for the
# calls of the next seconds (statusline-snapshot.json): restamped to the
# present like the tray's, it is the call a moment after another session's.
recent_call() {
	sed "0,/\"at\": *\"[^\"]*\"/s//\"at\":\"$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)\"/" \
		"$work/statusline-snapshot.tmpl" >"$RUNWAY_STATE_DIR/.statusline.tmp"
	mv "$RUNWAY_STATE_DIR/.statusline.tmp" "$RUNWAY_STATE_DIR/statusline-snapshot.json"
}
no_snapshot='rm -f "$RUNWAY_STATE_DIR/snapshot.json" "$RUNWAY_STATE_DIR/statusline-snapshot.json"'

cmd_fresh=("$runway" statusline)
prep_fresh="$no_snapshot; fresh_snapshot"
stdin_fresh=$work/stdin.json
cmd_recent=("$runway" statusline)
prep_recent="$no_snapshot; recent_call"
stdin_recent=$work/stdin.json
cmd_cold=("$runway" statusline)
prep_cold=$no_snapshot
stdin_cold=$work/stdin.json
cmd_first=("$runway" statusline)
prep_first="$no_snapshot"'; rm -f "$RUNWAY_STATE_DIR/logs.index"'
stdin_first=$work/stdin.json
cmd_version=("$runway" version)
cmd_hello=("$hello")
names=(fresh recent cold first version hello)

ccusage=${CCUSAGE:-$NPM_PREFIX/node_modules/.bin/ccusage}
if [ -x "$ccusage" ]; then
	cmd_cccache=("$ccusage" statusline --offline)
	stdin_cccache=$work/stdin.json
	cmd_ccnocache=("$ccusage" statusline --offline --no-cache)
	stdin_ccnocache=$work/stdin.json
	names+=(cccache ccnocache)
else
	say "ccusage not found ($ccusage): timing runway alone"
fi

fresh_snapshot
say "with a fresh snapshot: $("$runway" statusline <"$work/stdin.json" 2>&1)"
eval "$no_snapshot"
say "cold:                  $("$runway" statusline <"$work/stdin.json" 2>&1)"
cp "$RUNWAY_STATE_DIR/statusline-snapshot.json" "$work/statusline-snapshot.tmpl"
say "timing ($WARMUP warm-ups, $RUNS runs each, interleaved)"
interleave "${names[@]}"

echo
echo "history: $history_files files, $((history_bytes / 1000000)) MB, active session $(($(stat -c %s "$active") / 1000000)) MB"
echo
table_head
report fresh "runway statusline, fresh tray snapshot"
report recent "runway statusline, no tray, a call 0 s before"
report cold "runway statusline, no tray (index warm)"
report first "runway statusline, no tray, no index"
report version "runway version (process start-up)"
report hello "a Go hello-world (any Go program's start-up)"
if [ -n "${cmd_cccache+x}" ]; then
	report cccache "ccusage statusline --offline (cached)"
	report ccnocache "ccusage statusline --offline --no-cache"
fi

# Each statusline row beside the start-up floor measured in the same run:
# the part of a call that is runway's own work.
echo
v=$(median_of version)
for name in fresh recent cold first; do
	awk -v n="$name" -v m="$(median_of "$name")" -v v="$v" \
		'BEGIN {printf "%-7s %.1f ms above runway version (%.2fx)\n", n, m - v, m / v}'
done
if [ -n "${cmd_cccache+x}" ]; then
	awk -v c="$(median_of cccache)" -v r="$(median_of fresh)" 'BEGIN {printf "ccusage (cached) / runway with a tray snapshot: %.0fx\n", c / r}'
fi
