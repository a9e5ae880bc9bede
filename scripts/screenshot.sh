#!/usr/bin/env bash
# screenshot.sh: pictures of the real `runway tray` for the README.
#
# Runs runway on the built-in demo history under Xvfb, with a real tray host
# (gtk-sni-tray-standalone, its own StatusNotifierWatcher) and a real
# notification daemon (dunst) on a private session bus, and writes, cropped:
#
#   OUT/tray-icon.png          the icon in the panel, at twice its size
#   OUT/tray-tooltip.png       the tooltip
#   OUT/tray-menu.png          the open menu
#   OUT/tray-notification.png  the notification when the window heads for run-out
#
# The notification comes the way it does for a user: Claude Code hands
# `runway statusline` a steeper 5-hour percent, the tray sees the sample log
# grow, the window now runs out within the hour, and runway notifies.
#
# Usage: scripts/screenshot.sh [OUT]   (OUT defaults to docs)
# Installs what it needs with apt-get when missing (run it as root, or with
# the packages below installed). Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mkdir -p "${1:-docs}" && cd "${1:-docs}" && pwd)

say() { printf '== %s\n' "$*" >&2; }

packages=(xvfb imagemagick xdotool dunst libnotify-bin haskell-gtk-sni-tray-utils libglib2.0-bin dbus fonts-dejavu-core)
missing=()
for p in "${packages[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
	say "installing ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# ImageMagick's own tools, whatever else is first on PATH.
convert=/usr/bin/convert
import=/usr/bin/import
display_im=/usr/bin/display

work=$(mktemp -d)
pids=()
cleanup() {
	local status=$? pid
	if [ "$status" -ne 0 ] && [ -s "$work/runway.log" ]; then
		say "runway said:"
		cat "$work/runway.log" >&2
	fi
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

# until CMD...: retry for up to 10 s (the pictures need the desktop ready,
# not a fixed pause).
until_ok() {
	local _
	for _ in $(seq 100); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	say "gave up waiting for: $*"
	return 1
}

say "building runway and the demo history"
go build -o "$work/runway" ./cmd/runway
go run ./scripts/demo-history "$work/demo"
mkdir -p "$work/home"
runway_env=(
	HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.local/state"
	CLAUDE_CONFIG_DIR="$work/demo/claude" CODEX_HOME="$work/demo/codex" RUNWAY_STATE_DIR="$work/demo/state" RUNWAY_CLAUDE_CACHE_DIR="$work/claude-cache"
)

say "starting Xvfb, a session bus, the tray host and dunst"
n=90
while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
export DISPLAY=:$n
Xvfb "$DISPLAY" -screen 0 800x480x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids+=($!)
until_ok xdotool getdisplaygeometry
# A plain desktop colour behind everything, so crops can find what is drawn.
background='#3b4252'
"$convert" -size 8x8 "xc:$background" "$work/bg.png"
"$display_im" -window root "$work/bg.png" || true # sets it, then exits 1

{
	read -r bus
	read -r bus_pid
} < <(dbus-daemon --session --fork --print-address=1 --print-pid=1 --nopidfile)
pids+=("$bus_pid")
export DBUS_SESSION_BUS_ADDRESS=$bus
unset XDG_RUNTIME_DIR WAYLAND_DISPLAY

gtk-sni-tray-standalone --top --watcher --size 40 --color '#202020' >"$work/host.log" 2>&1 &
pids+=($!)
timeout 10 gdbus wait --session org.kde.StatusNotifierWatcher

cat >"$work/dunstrc" <<'EOF'
[global]
    font = DejaVu Sans 10
    width = 520
    origin = top-right
    offset = 12x52
    padding = 10
    horizontal_padding = 12
    frame_width = 1
    frame_color = "#5a5a5a"
    corner_radius = 6
    icon_position = left
    min_icon_size = 32
    max_icon_size = 48
    format = "<b>%s</b>\n%b"
    show_age_threshold = -1
[urgency_low]
    background = "#2b2b2b"
    foreground = "#eeeeee"
    timeout = 0
[urgency_normal]
    background = "#2b2b2b"
    foreground = "#eeeeee"
    timeout = 0
[urgency_critical]
    background = "#3a1f1f"
    foreground = "#ffffff"
    frame_color = "#e04040"
    timeout = 0
EOF
dunst -config "$work/dunstrc" >"$work/dunst.log" 2>&1 &
pids+=($!)
timeout 10 gdbus wait --session org.freedesktop.Notifications

say "starting runway tray on the demo history"
env "${runway_env[@]}" "$work/runway" tray --offline >"$work/runway.log" 2>&1 &
runway_pid=$!
pids+=("$runway_pid")
item=org.kde.StatusNotifierItem-$runway_pid-1
tooltip() {
	gdbus call --session --dest "$item" --object-path /StatusNotifierItem \
		--method org.freedesktop.DBus.Properties.Get org.kde.StatusNotifierItem ToolTip
}
has_figures() { tooltip | grep -q 'm/h'; }
# The first snapshot is in once the tooltip carries figures.
until_ok has_figures
sleep 0.5 # the host redraws the new icon

shot() { "$import" -window root "$work/$1.png"; }

# crop NAME GEOMETRY: cut a region of a shot into OUT.
crop() {
	"$convert" "$work/$1.png" -crop "$2" +repage -strip "$out/$3"
	say "wrote $out/$3 ($(stat -c %s "$out/$3") bytes)"
}

# drawn NAME: the box around what is drawn below the bar, as W H X Y.
drawn() {
	"$convert" "$work/$1.png" -crop 800x440+0+40 +repage -bordercolor "$background" -border 1 \
		-fuzz 3% -trim -format '%w %h %X %Y\n' info: | tr -d '+'
}

# below NAME FILE: the icon and what opened under it, from the top-left.
below() {
	local w h x y
	read -r w h x y < <(drawn "$1")
	crop "$1" "$((x + w + 8))x$((40 + y + h + 8))+0+0" "$2"
}

say "taking the pictures"
xdotool mousemove 400 300
shot icon
# The icon is 40 pixels of a 40-pixel bar: shown twice its size, pixels kept.
"$convert" "$work/icon.png" -crop 56x40+0+0 +repage -filter point -resize 200% -strip "$out/tray-icon.png"
say "wrote $out/tray-icon.png ($(stat -c %s "$out/tray-icon.png") bytes)"

xdotool mousemove 20 20
tooltip_shown() {
	shot tooltip
	local w h x y
	read -r w h x y < <(drawn tooltip)
	[ "$h" -gt 10 ]
}
until_ok tooltip_shown
below tooltip tray-tooltip.png

xdotool click 1
sleep 1.5
shot menu
below menu tray-menu.png
xdotool key Escape
xdotool mousemove 400 300

say "recording a steeper percent through runway statusline"
last() { grep "\"provider\":\"claude\",\"window\":\"$1\"" "$work/demo/state/samples.jsonl" | tail -1 | sed 's/.*"resets_at":"\([^"]*\)".*/\1/'; }
printf '{"session_id":"7d0c6a52-5a8e-4e43-9c55-1f3b0c3e9a01","cwd":"/home/dev/src/shop-api","model":{"id":"claude-opus-4-5","display_name":"Opus"},"rate_limits":{"five_hour":{"used_percentage":72,"resets_at":%d},"seven_day":{"used_percentage":34.2,"resets_at":%d}}}' \
	"$(date -d "$(last 5h)" +%s)" "$(date -d "$(last weekly)" +%s)" |
	env "${runway_env[@]}" "$work/runway" statusline >/dev/null
# dunst shows it while it is open: wait for runway to have sent it.
until_ok grep -q burning_fast "$work/demo/state/notices.json"
sleep 1
shot notification
read -r w h x y < <(drawn notification)
crop notification "$((w + 16))x$((h + 16))+$((x - 8))+$((40 + y - 8))" tray-notification.png

if [ -s "$work/runway.log" ]; then
	say "runway said:"
	cat "$work/runway.log" >&2
fi
