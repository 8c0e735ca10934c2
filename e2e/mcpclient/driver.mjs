// driver.mjs: a real MCP client (the official TypeScript SDK, which Claude
// Code is built on) that the Go e2e tests steer. It launches the server
// named by MCP_COMMAND (MCP_ARGS: a JSON array, MCP_CWD: its working
// directory) over stdio exactly as Claude Code launches a channel server,
// initializes, and then speaks JSON lines with the test:
//
//   stdin  {"id":1,"op":"listTools"}
//          {"id":2,"op":"callTool","name":"reply","arguments":{...}}
//          {"id":3,"op":"notify","method":"...","params":{...}}
//          {"id":4,"op":"close"}
//   stdout {"event":"ready","pid":N,"capabilities":{...},"instructions":"..."}
//          {"id":1,"result":{...}} or {"id":1,"error":"..."}
//          {"event":"notification","method":"...","params":{...}}
//          {"event":"dropped","method":"...","params":{...}}
//          {"event":"closed"}
//
// It registers its handlers in Claude Code's order (2.1.328): the tool list
// first, then, a moment later (CHANNEL_REGISTER_DELAY_MS, default 150),
// the channel handlers and the tools/list_changed handler in one step; a
// list_changed makes it ask for the tool list again. A notification that
// comes before its handler is dropped, as Claude Code drops it, and
// reported as "dropped".
//
// The server's stderr goes to this process's stderr.
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const emit = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

const transport = new StdioClientTransport({
  command: process.env.MCP_COMMAND,
  args: JSON.parse(process.env.MCP_ARGS || "[]"),
  cwd: process.env.MCP_CWD || process.cwd(),
  env: { ...process.env },
  stderr: "inherit",
});
transport.onclose = () => emit({ event: "closed" });

const client = new Client({ name: "chatbus-e2e", version: "0.0.0" }, { capabilities: {} });
client.fallbackNotificationHandler = async (n) => emit({ event: "dropped", method: n.method, params: n.params });

await client.connect(transport);
await client.listTools();
await sleep(Number(process.env.CHANNEL_REGISTER_DELAY_MS || 150));
for (const method of ["notifications/claude/channel", "notifications/claude/channel/permission"]) {
  client.setNotificationHandler(
    z.object({ method: z.literal(method), params: z.object({}).passthrough() }),
    (n) => emit({ event: "notification", method: n.method, params: n.params }),
  );
}
client.setNotificationHandler(ToolListChangedNotificationSchema, () => client.listTools().then(() => {}));
emit({
  event: "ready",
  pid: transport.pid,
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions(),
  server: client.getServerVersion(),
});

const ops = {
  listTools: () => client.listTools(),
  callTool: (c) => client.callTool({ name: c.name, arguments: c.arguments || {} }),
  notify: async (c) => {
    await client.notification({ method: c.method, params: c.params || {} });
    return {};
  },
  close: async () => {
    await client.close();
    return {};
  },
};

const rl = createInterface({ input: process.stdin });
rl.on("line", async (line) => {
  if (!line.trim()) return;
  let cmd;
  try {
    cmd = JSON.parse(line);
    const op = ops[cmd.op];
    if (!op) throw new Error(`unknown op ${cmd.op}`);
    emit({ id: cmd.id, result: await op(cmd) });
  } catch (err) {
    emit({ id: cmd?.id, error: String(err?.message || err) });
  }
  if (cmd?.op === "close") process.exit(0);
});
rl.on("close", async () => {
  await client.close().catch(() => {});
  process.exit(0);
});
