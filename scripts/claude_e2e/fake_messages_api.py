"""A scripted stand-in for the Anthropic Messages API, for `make claude-e2e`.

Claude Code is pointed at it with ANTHROPIC_BASE_URL. The *main conversation* (a request whose
`tools` include MCP tools, `mcp__…`) gets one scripted `tool_use` per turn (a `Script`'s steps, in
order: SCRIPT for the main check, another one given to `start`), chosen by how many `tool_result`
blocks the conversation already holds, then the script's final text reply.
Every other request (titles, quota probes, summaries, …) gets a short text reply. Every request,
whatever its path, is appended to a JSON-lines log that the runner inspects afterwards.

Stdlib only. Run standalone for debugging: `python fake_messages_api.py --log /tmp/requests.jsonl`
(`--script steps.json` for another script: `{"steps": [{"tool", "arguments", "expect"}, …], "final_text"}`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

FINAL_TEXT = "All scripted calls are done: a note read by tool and as a resource, typed errors received."
SIDE_TEXT = "E2E check"


@dataclass(frozen=True)
class Step:
    """One scripted tool call and what the runner expects Claude Code to hand back."""

    tool: str
    arguments: dict[str, Any]
    # An MCP tool (mcp__…): "ok" or a contract error code. Claude Code's own resource tools: "resources" (the
    # server's resources/list), "text" (the resource's text), "resource_not_found" (the server answered -32002),
    # "resource_error" (another JSON-RPC error carrying the contract object), "no_resources" (the server's
    # resources/list failed).
    expect: str
    # What the model says before the call (the text block of its turn); None: "Step n: calling <tool>."
    says: str | None = None


@dataclass(frozen=True)
class Script:
    """What the scripted model does in one session: its tool calls in order, then its final text."""

    steps: tuple[Step, ...]
    final_text: str

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Script:
        steps = tuple(
            Step(str(s["tool"]), dict(s["arguments"]), str(s["expect"]), s.get("says")) for s in data["steps"]
        )
        return cls(steps, str(data["final_text"]))


SCRIPT: tuple[Step, ...] = (
    Step("mcp__obsidian__read_note", {"path": "Projects/Alpha.md", "max_chars": 400}, "ok"),
    Step("mcp__obsidian__read_note", {"path": "../secret"}, "permission_denied"),
    Step("mcp__obsidian__read_note", {"path": "Projects/No Such Note.md"}, "not_found"),
    Step("mcp__gmail__list_labels", {}, "auth_required"),
    # Claude Code's own resource tools, on both servers (gmail has no token).
    Step("ListMcpResourcesTool", {"server": "obsidian"}, "resources"),
    Step("ReadMcpResourceTool", {"server": "obsidian", "uri": "obsidian://note/Projects/Alpha.md"}, "text"),
    Step(
        "ReadMcpResourceTool",
        {"server": "obsidian", "uri": "obsidian://note/Projects/No Such Note.md"},
        "resource_not_found",
    ),
    Step("ListMcpResourcesTool", {"server": "gmail"}, "no_resources"),
    Step("ReadMcpResourceTool", {"server": "gmail", "uri": "gmail://message/18c0ffee"}, "resource_error"),
)
MAIN = Script(SCRIPT, FINAL_TEXT)


def tool_use_id(index: int) -> str:
    return f"toolu_e2e_{index:02d}"


def is_main_conversation(body: dict[str, Any]) -> bool:
    tools = body.get("tools")
    if not isinstance(tools, list):
        return False
    return any(isinstance(tool, dict) and str(tool.get("name", "")).startswith("mcp__") for tool in tools)


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """All tool_result blocks of a request's messages, in order."""
    found: list[dict[str, Any]] = []
    for message in body.get("messages") or []:
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            continue
        found.extend(
            block for block in message["content"] if isinstance(block, dict) and block.get("type") == "tool_result"
        )
    return found


def scripted_content(body: dict[str, Any], script: Script = MAIN) -> tuple[list[dict[str, Any]], str]:
    """The assistant content blocks and stop_reason for this request."""
    if not is_main_conversation(body):
        return [{"type": "text", "text": SIDE_TEXT}], "end_turn"
    done = len(tool_results(body))
    if done < len(script.steps):
        step = script.steps[done]
        block = {"type": "tool_use", "id": tool_use_id(done), "name": step.tool, "input": step.arguments}
        says = step.says or f"Step {done + 1}: calling {step.tool}."
        return [{"type": "text", "text": says}, block], "tool_use"
    return [{"type": "text", "text": script.final_text}], "end_turn"


_message_ids = itertools.count(1)


def _usage() -> dict[str, int]:
    return {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def message_json(body: dict[str, Any], script: Script = MAIN) -> dict[str, Any]:
    content, stop_reason = scripted_content(body, script)
    return {
        "id": f"msg_e2e_{next(_message_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model") or "claude-fake"),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(),
    }


def sse_events(body: dict[str, Any], script: Script = MAIN) -> Iterator[tuple[str, dict[str, Any]]]:
    """The streaming form of message_json(body, script), event by event."""
    message = message_json(body, script)
    start = {**message, "content": [], "stop_reason": None, "usage": {**_usage(), "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                },
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield "message_stop", {"type": "message_stop"}


class FakeMessagesAPI(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], log_path: Path, script: Script = MAIN) -> None:
        super().__init__(address, Handler)
        self.log_path = log_path
        self.script = script
        self.log_lock = threading.Lock()

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def log(self, record: dict[str, Any]) -> None:
        with self.log_lock, self.log_path.open("a", encoding="utf-8") as log:
            log.write(json.dumps(record, ensure_ascii=False) + "\n")


class Handler(BaseHTTPRequestHandler):
    server: FakeMessagesAPI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # every request goes to the JSON-lines log instead

    def _read_body(self) -> tuple[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        try:
            return raw, json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return raw, None

    def _record(self, raw: str, body: Any, answer: str) -> None:
        self.server.log(
            {
                "method": self.command,
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items() if k.lower() not in {"x-api-key"}},
                "body": body if body is not None else raw,
                "answer": answer,
            }
        )

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_e2e_fake")
        self.end_headers()
        self.wfile.write(data)

    def _not_found(self, raw: str, body: Any) -> None:
        self._record(raw, body, "404")
        self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "not in the fake"}})

    def do_GET(self) -> None:
        self._not_found("", None)

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        raw, body = self._read_body()
        path = urlsplit(self.path).path.rstrip("/")
        if path == "/v1/messages/count_tokens":
            self._record(raw, body, "count_tokens")
            self._send_json(200, {"input_tokens": 100})
            return
        if path != "/v1/messages" or not isinstance(body, dict):
            self._not_found(raw, body)
            return
        role = "main" if is_main_conversation(body) else "side"
        if not body.get("stream"):
            self._record(raw, body, f"{role}:json")
            self._send_json(200, message_json(body, self.server.script))
            return
        self._record(raw, body, f"{role}:sse")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.send_header("request-id", "req_e2e_fake")
        self.end_headers()
        self.close_connection = True
        for event, data in sse_events(body, self.server.script):
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()


def start(log_path: Path, host: str = "127.0.0.1", port: int = 0, script: Script = MAIN) -> FakeMessagesAPI:
    """Serve `script` on a background thread; call .shutdown() and .server_close() when done."""
    server = FakeMessagesAPI((host, port), log_path, script)
    threading.Thread(target=server.serve_forever, name="fake-messages-api", daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--log", type=Path, required=True, help="JSON-lines file for every request")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", type=Path, help='JSON {"steps": [{"tool", "arguments", "expect"}], "final_text"}')
    args = parser.parse_args()
    script = Script.from_json(json.loads(args.script.read_text(encoding="utf-8"))) if args.script else MAIN
    server = FakeMessagesAPI(("127.0.0.1", args.port), args.log, script)
    print(f"listening on {server.base_url}, logging to {args.log}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
