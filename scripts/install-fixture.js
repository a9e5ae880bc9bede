const fs = require("fs"), path = require("path");
const home = process.env.HOME, now = Date.now();
const sid = "3f6e2a1c-8b4d-4e2f-9a7c-5d1b0e9f4c21", cwd = "/home/dev/shop-api";
const dir = path.join(home, ".claude", "projects", cwd.replace(/\//g, "-"));
fs.mkdirSync(dir, { recursive: true });
const transcript = path.join(dir, sid + ".jsonl");
const lines = [];
let n = 0;
const line = (type, at, extra) => Object.assign({
  parentUuid: n ? `00000000-0000-4000-8000-${String(n).padStart(12, "0")}` : null,
  isSidechain: false, userType: "external", cwd, sessionId: sid, version: "2.1.328",
  gitBranch: "main", type, uuid: `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
  timestamp: new Date(at).toISOString(),
}, extra);
for (let i = 0; i < 20; i++) {
  const at = now - (20 - i) * 60000;
  lines.push(line("user", at - 5000, { message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "ok" }] } }));
  lines.push(line("assistant", at, { requestId: `req_${i}`, message: { id: `msg_${i}`, type: "message", role: "assistant", model: "claude-opus-4-5",
    content: [{ type: "text", text: "ok" }], stop_reason: "tool_use", stop_sequence: null,
    usage: { input_tokens: 12, cache_creation_input_tokens: 4000, cache_read_input_tokens: 90000, output_tokens: 800, service_tier: "standard",
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 4000 } } } }));
}
fs.writeFileSync(transcript, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
const s = Math.floor(now / 1000);
process.stdout.write(JSON.stringify({
  session_id: sid, transcript_path: transcript, cwd,
  model: { id: "claude-opus-4-5", display_name: "Opus 4.5" },
  workspace: { current_dir: cwd, project_dir: cwd }, version: "2.1.328",
  cost: { total_cost_usd: 1.23, total_duration_ms: 1200000, total_api_duration_ms: 600000, total_lines_added: 10, total_lines_removed: 2 },
  context_window: { total_input_tokens: 94012, total_output_tokens: 16000, context_window_size: 200000 },
  rate_limits: { five_hour: { used_percentage: 37.4, resets_at: s + 3 * 3600 }, seven_day: { used_percentage: 26.1, resets_at: s + 4 * 86400 } },
}) + "\n");
