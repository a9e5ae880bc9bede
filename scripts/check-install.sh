#!/usr/bin/env bash
# The install channels as a user meets them, from a snapshot of the release
# (.goreleaser.yaml; all but macOS, whose tray needs cgo and a Mac):
#   - the npm packages, packed and installed from the tarballs with npm
#     offline, run through npm's bin link; then, as a new user with Node and
#     no Go, from nothing to a figure in three commands (npm install, runway
#     setup --yes, runway now) on a real-format Claude Code session;
#   - the .deb installed with dpkg into an empty root, and run;
#   - the Homebrew cask and the Scoop manifest generated.
# .ci/run runs it; so can a developer (root, or dpkg's --force-not-root).
# RUNWAY_CHECK_SKIP_SETUP=1 leaves out `runway setup --yes` (for a branch
# without it) and runs `runway statusline` as the statusline instead.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '== %s\n' "$*"; }
fail() { printf 'check-install: %s\n' "$*" >&2; exit 1; }

goreleaser=${GORELEASER:-go run github.com/goreleaser/goreleaser/v2@v2.15.1}
work=$(mktemp -d "${TMPDIR:-/tmp}/runway-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

say "release configuration (goreleaser check)"
$goreleaser check

say "snapshot release: archives, .deb, .rpm, cask, Scoop manifest (all but macOS)"
RUNWAY_RELEASE_NO_MACOS=1 $goreleaser release --snapshot --clean >"$work/goreleaser.log" 2>&1 ||
	{ cat "$work/goreleaser.log" >&2; fail "goreleaser release --snapshot failed"; }
version=$(node -p 'require("./dist/metadata.json").version')
case $version in *-snapshot) ;; *) fail "snapshot version is $version" ;; esac

# The cask and the manifest fetch the release's archives from the repository.
cask=dist/homebrew/Casks/runway.rb
scoop=dist/scoop/runway.json
[ -f "$cask" ] || fail "no Homebrew cask at $cask"
[ -f "$scoop" ] || fail "no Scoop manifest at $scoop"
grep -q "^  version \"$version\"$" "$cask" &&
	grep -Eq '^ +url "https://github.com/agentrunway/runway/releases/download/v[^/]+/runway_#\{version\}_linux_amd64\.tar\.gz"$' "$cask" ||
	fail "$cask does not fetch the Linux archive of $version"
node -e '
	const [file, version] = process.argv.slice(1);
	const m = require("./" + file), url = m.architecture["64bit"].url;
	if (m.version !== version || !/^https:\/\/github\.com\/agentrunway\/runway\/releases\/download\/v[^/]+\/runway_/.test(url) || !url.endsWith("_" + version + "_windows_amd64.zip")) {
		console.error("scoop manifest:", m.version, url); process.exit(1);
	}' "$scoop" "$version"

say "npm packages of $version: made, packed, installed offline from the tarballs"
go run ./scripts/npm-packages -partial -out "$work/npm" >/dev/null
mkdir "$work/tgz"
for dir in "$work"/npm/*/; do
	npm pack --silent --pack-destination "$work/tgz" "$dir" >/dev/null
done
system=$(node -p 'process.platform + "-" + process.arch')
launcher=$work/tgz/agentrunway-runway-$version.tgz
binary=$work/tgz/agentrunway-runway-$system-$version.tgz
[ -f "$launcher" ] && [ -f "$binary" ] || fail "no tarballs for $system: $(ls "$work/tgz")"

# A user with Node and npm and no Go: PATH holds only node, npm, npx, sh
# and what npm installs; HOME is empty; npm's global prefix is theirs; npm cannot
# reach a registry (--offline, an empty cache).
home=$work/home
prefix=$work/prefix
mkdir -p "$home" "$prefix" "$work/bin"
ln -s "$(command -v node)" "$work/bin/node"
ln -s "$(command -v sh)" "$work/bin/sh"
for tool in npm npx; do
	ln -s "$(readlink -f "$(command -v $tool)")" "$work/bin/$tool"
done
as_user() {
	env -i HOME="$home" PATH="$prefix/bin:$work/bin" TERM=dumb LANG=C.UTF-8 \
		npm_config_prefix="$prefix" npm_config_cache="$work/npm-cache" npm_config_offline=true \
		npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false "$@"
}
as_user sh -c '! command -v go' >/dev/null || fail "go is on the user's PATH"

# The user has Claude Code at work: a session's real-format transcript in
# ~/.claude/projects, and the statusline JSON its next reply will send.
sample=$(as_user node scripts/install-fixture.js)

# 1. npm install
as_user npm install -g --loglevel=error "$binary" "$launcher"
out=$(as_user runway version)
[ "$out" = "runway $version" ] || fail "runway version printed '$out', want 'runway $version'"
[ "$(readlink -f "$(as_user sh -c 'command -v runway')")" = "$(readlink -f "$prefix/lib/node_modules/@agentrunway/runway/bin/runway.js")" ] ||
	fail "runway on PATH is not npm's bin link to the launcher"
out=$(as_user runway now --demo)
grep -q '^claude 5h ' <<<"$out" || fail "runway now --demo printed: $out"
# npx, from the same two packages.
out=$(as_user npx --yes --package="$binary" --package="$launcher" -- runway version)
[ "$out" = "runway $version" ] || fail "npx ... runway version printed '$out'"
# The exit code comes through the launcher: nothing to read yet is 3.
rc=0
as_user runway now --check >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "runway now --check on an empty home exited $rc through the launcher, want 3"

# 2. runway setup --yes: sets Claude Code's statusLine to runway's.
settings=$home/.claude/settings.json
if [ -z "${RUNWAY_CHECK_SKIP_SETUP:-}" ]; then
	as_user runway setup --yes
	statusline=$(node -p 'require(process.argv[1]).statusLine.command' "$settings")
else
	say "RUNWAY_CHECK_SKIP_SETUP: no runway setup; runway statusline as the statusline"
	statusline="runway statusline"
fi

# Claude Code's next reply runs the statusline command with its JSON on
# stdin.
as_user sh -c "$statusline" <<<"$sample" >/dev/null || fail "the statusline '$statusline' failed"

# 3. runway now
out=$(as_user runway now)
printf '%s\n' "$out"
grep -Eq '^claude 5h 37\.4% .*m/h' <<<"$out" || fail "runway now gave no figure from the session: $out"

# Installed without the system's package, the launcher says why it has
# nothing to run.
rc=0
err=$(env -i HOME="$home" PATH="$work/bin" npm_config_prefix="$work/bare" npm_config_cache="$work/npm-cache" \
	npm_config_offline=true npm install -g --loglevel=error --omit=optional "$launcher" 2>&1 &&
	env -i HOME="$home" PATH="$work/bare/bin:$work/bin" runway version 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -q "@agentrunway/runway-$system is not installed" <<<"$err" ||
	fail "launcher without its binary package exited $rc: $err"

say ".deb installed with dpkg into an empty root"
if command -v dpkg >/dev/null 2>&1; then
	deb=$(ls dist/runway_*_amd64.deb)
	root=$work/root
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
	touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
	force=
	[ "$(id -u)" = 0 ] || force=--force-not-root
	dpkg --root="$root" $force --log=/dev/null -i "$deb" >/dev/null
	dpkg --root="$root" -L runway | grep -qx /usr/bin/runway || fail "the .deb has no /usr/bin/runway"
	out=$(env -i PATH="$root/usr/bin" runway version)
	[ "$out" = "runway $version" ] || fail "the .deb's runway version printed '$out'"
	ls dist/runway-*.x86_64.rpm >/dev/null
elif [ "${CI:-}" = true ]; then
	fail "no dpkg to install the .deb with"
else
	say "no dpkg here: the .deb is not installed"
fi
rm -rf dist
say "install channels: ok ($version)"
