#!/usr/bin/env node
// The runway launcher npm puts on PATH: it finds the binary that came with
// this system's package (@agentrunway/runway-<os>-<cpu>, an optional
// dependency npm picks by its os and cpu fields) and runs it, passing the
// arguments, the terminal, the exit code and a killing signal through.
"use strict";

const { spawnSync } = require("child_process");
const path = require("path");

const platform = `${process.platform}-${process.arch}`;
const pkg = `@agentrunway/runway-${platform}`;
const supported = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-arm64", "win32-x64"];

function fail(lines) {
  process.stderr.write(`runway: ${lines.join("\n  ")}\n`);
  process.exit(1);
}

let binary;
try {
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  binary = path.join(dir, "bin", process.platform === "win32" ? "runway.exe" : "runway");
} catch (err) {
  if (!supported.includes(platform)) {
    fail([
      `no runway build for ${platform} on npm (there are: ${supported.join(", ")}).`,
      "Build it from source: go install github.com/agentrunway/runway/cmd/runway@latest",
    ]);
  }
  fail([
    `${pkg} is not installed, and it holds the runway program for this system.`,
    "npm skips it when optional dependencies are left out (--no-optional, --omit=optional,",
    "or a lockfile made on another system). Install again with them:",
    "  npm install -g @agentrunway/runway --include=optional",
  ]);
}

const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  fail([`cannot run ${binary}: ${run.error.message}`]);
}
if (run.signal) {
  // Die of the same signal, so the shell sees what the program saw; exit as
  // a shell would report it if the signal cannot be raised here.
  process.kill(process.pid, run.signal);
  const signals = require("os").constants.signals;
  process.exit(128 + (signals[run.signal] || 0));
}
process.exit(run.status === null ? 1 : run.status);
