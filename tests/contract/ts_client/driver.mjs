// Drive MCP servers with the official TypeScript SDK client and print what it hands to its caller.
//
// stdin: {"sessions": [{"label", "command", "args", "env", "cwd", "calls": [{"name", "arguments"}]}]}
// stdout: one JSON document {"sdk_version", "sessions": {label: {"server", "tools", "calls", "stderr"}}}
//
// Per session: connect, listTools() FIRST (it arms Client.callTool's outputSchema validation, the code path
// of typescript-sdk#1943), then every call in order. A call records either the CallToolResult callTool
// returned, unchanged, or the exception it threw (class, code, message); the Python test decides what is
// acceptable. Anything failing outside callTool (spawn, initialize, listTools) is fatal: exit code 1.
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
      const entry = { name: call.name, arguments: call.arguments };
      try {
        entry.result = await client.callTool({ name: call.name, arguments: call.arguments });
      } catch (error) {
        entry.exception = {
          class: error?.constructor?.name ?? typeof error,
          code: error?.code ?? null,
          message: String(error?.message ?? error),
        };
      }
      calls.push(entry);
    }
    return { server: client.getServerVersion(), tools, calls, stderr };
  } finally {
    await client.close();
  }
}

const scenario = JSON.parse(readFileSync(0, "utf8"));
const results = await Promise.all(scenario.sessions.map(runSession));
const sessions = Object.fromEntries(scenario.sessions.map((session, i) => [session.label, results[i]]));
for (const result of Object.values(sessions)) {
  result.stderr = result.stderr.join("");
}
process.stdout.write(JSON.stringify({ sdk_version: SDK_VERSION, sessions }) + "\n");
