// Drive MCP servers with the official TypeScript SDK client and print what it hands to its caller.
//
// stdin: {"sessions": [{"label", "command", "args", "env", "cwd", "calls": [{"name", "arguments"}],
//          "reads": [{"uri"}], "prompts": [{"name", "arguments"}]}]}   (reads and prompts optional)
// stdout: one JSON document {"sdk_version", "sessions": {label: {"server", "tools", "calls", "reads",
//          "prompts", "stderr"}}}
//
// Per session: connect, listTools() FIRST (it arms Client.callTool's outputSchema validation, the code path
// of typescript-sdk#1943), then every call in order, then every readResource and getPrompt in order. Each
// records either what the client returned, unchanged, or the exception it threw (class, code, message, and
// the JSON-RPC error's data); the Python test decides what is acceptable. Anything failing outside those
// (spawn, initialize, listTools) is fatal: exit code 1.
import { readFileSync } from "node:fs";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const SDK_VERSION = JSON.parse(
  readFileSync(new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url), "utf8"),
).version;

async function runSession(session) {
  const transport = new StdioClientTransport({
    command: session.command,
    args: session.args,
    env: session.env,
    cwd: session.cwd,
    stderr: "pipe",
  });
  const stderr = [];
  transport.stderr.on("data", (chunk) => stderr.push(chunk.toString("utf8")));

  const client = new Client({ name: "contract-ts-client", version: "0.0.0" });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    const calls = [];
    for (const call of session.calls) {
      calls.push(await attempt({ name: call.name, arguments: call.arguments }, () => client.callTool(call)));
    }
    const reads = [];
    for (const read of session.reads ?? []) {
      reads.push(await attempt({ uri: read.uri }, () => client.readResource({ uri: read.uri })));
    }
    const prompts = [];
    for (const prompt of session.prompts ?? []) {
      prompts.push(await attempt({ name: prompt.name, arguments: prompt.arguments }, () => client.getPrompt(prompt)));
    }
    return { server: client.getServerVersion(), tools, calls, reads, prompts, stderr };
  } finally {
    await client.close();
  }
}

// `entry` with what `request()` resolved to (`result`) or the exception it threw (`exception`).
async function attempt(entry, request) {
  try {
    entry.result = await request();
  } catch (error) {
    entry.exception = {
      class: error?.constructor?.name ?? typeof error,
      code: error?.code ?? null,
      message: String(error?.message ?? error),
      data: error?.data ?? null,
    };
  }
  return entry;
}

const scenario = JSON.parse(readFileSync(0, "utf8"));
const results = await Promise.all(scenario.sessions.map(runSession));
const sessions = Object.fromEntries(scenario.sessions.map((session, i) => [session.label, results[i]]));
for (const result of Object.values(sessions)) {
  result.stderr = result.stderr.join("");
}
process.stdout.write(JSON.stringify({ sdk_version: SDK_VERSION, sessions }) + "\n");
