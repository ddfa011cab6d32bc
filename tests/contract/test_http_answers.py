"""HTTP: an answer that comes alone is sent as JSON on a kept connection; anything else streams as it comes.

That progress still reaches an HTTP client while the work runs is checked end to end by the HTTP pass
of test_obsidian_search_contract.py (the first build of a large vault reports progress).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx2
import pytest
from obsidian_mcp.runtime.http_answers import LoneAnswerAsJson, lone_answer
from starlette.types import Message, Receive, Scope, Send

from tests.contract.harness import REPO, HttpServer

pytestmark = [pytest.mark.anyio, pytest.mark.transport_independent(reason="starts its own HTTP servers; runs once")]

SSE_START: Message = {
    "type": "http.response.start",
    "status": 200,
    "headers": [
        (b"cache-control", b"no-cache, no-transform"),
        (b"content-type", b"text/event-stream"),
        (b"mcp-session-id", b"abc"),
        (b"x-accel-buffering", b"no"),
    ],
}
ANSWER = b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}'
ERROR = b'{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"m"}}'
PROGRESS = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}'
END: Message = {"type": "http.response.body", "body": b"", "more_body": False}


def event(data: bytes) -> Message:
    return {"type": "http.response.body", "body": b"event: message\r\ndata: " + data + b"\r\n\r\n", "more_body": True}


def app_sending(*messages: Message, then_raise: bool = False) -> Any:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        for message in messages:
            await send(message)
        if then_raise:
            raise RuntimeError("the app failed")

    return app


async def through(app: Any, method: str = "POST") -> list[Message]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.disconnect"}

    await LoneAnswerAsJson(app)({"type": "http", "method": method}, receive, send)
    return sent


async def test_a_stream_that_opens_with_the_answer_is_sent_as_json_and_nothing_after() -> None:
    sent = await through(app_sending(SSE_START, event(ANSWER), END))
    assert [message["type"] for message in sent] == ["http.response.start", "http.response.body"]
    headers = dict(sent[0]["headers"])
    assert sent[0]["status"] == 200 and headers[b"content-type"] == b"application/json"
    assert headers[b"content-length"] == str(len(ANSWER)).encode() and headers[b"mcp-session-id"] == b"abc"
    assert b"x-accel-buffering" not in headers
    assert sent[1] == {"type": "http.response.body", "body": ANSWER, "more_body": False}


@pytest.mark.parametrize(
    "first",
    [
        event(PROGRESS),  # progress before the answer: it must reach the client while the work runs
        {"type": "http.response.body", "body": b": ping - 2026-11-26\r\n\r\n", "more_body": True},
        {"type": "http.response.body", "body": b"id: 1\r\nevent: message\r\ndata: " + ANSWER + b"\r\n\r\n"},
        END,  # a stream cut before any event
    ],
    ids=["progress", "ping", "resumable-event", "empty-stream"],
)
async def test_a_stream_that_opens_with_anything_else_passes_unchanged(first: Message) -> None:
    messages = [SSE_START, first, event(ANSWER), END] if first is not END else [SSE_START, END]
    assert await through(app_sending(*messages)) == messages


async def test_what_is_not_an_event_stream_or_not_a_post_passes_unchanged() -> None:
    accepted: list[Message] = [
        {"type": "http.response.start", "status": 202, "headers": [(b"content-type", b"application/json")]},
        {"type": "http.response.body", "body": b""},
    ]
    assert await through(app_sending(*accepted)) == accepted
    stream = [SSE_START, event(ANSWER), END]
    assert await through(app_sending(*stream), method="GET") == stream


async def test_a_held_start_is_sent_before_the_app_error_propagates() -> None:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.disconnect"}

    middleware = LoneAnswerAsJson(app_sending(SSE_START, then_raise=True))
    with pytest.raises(RuntimeError, match="the app failed"):
        await middleware({"type": "http", "method": "POST"}, receive, send)
    assert sent == [SSE_START]  # the server then sees a started response, as it would without the middleware


@pytest.mark.parametrize(
    ("chunk", "expected"),
    [
        (b"event: message\r\ndata: " + ANSWER + b"\r\n\r\n", ANSWER),
        (b"event: message\ndata: " + ANSWER + b"\n\n", ANSWER),
        (b"data: " + ERROR + b"\r\n\r\n", ERROR),  # an event without `event:` is a `message` event
        (b"event: message\r\ndata: " + PROGRESS + b"\r\n\r\n", None),
        (b'event: message\r\ndata: {"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}\r\n\r\n', None),
        (b"event: message\r\ndata: {not json\r\n\r\n", None),
        (b"event: message\r\ndata: " + ANSWER + b"\r\n", None),  # unfinished
        (b"event: message\r\ndata: " + ANSWER + b"\r\n\r\nevent: message\r\ndata: {}\r\n\r\n", None),
        (b"event: other\r\ndata: " + ANSWER + b"\r\n\r\n", None),
    ],
    ids=[
        "answer",
        "lf-separated",
        "error-without-event-field",
        "notification",
        "request",
        "bad-json",
        "unfinished",
        "two",
        "other",
    ],
)
def test_lone_answer_recognises_exactly_one_answer_event(chunk: bytes, expected: bytes | None) -> None:
    assert lone_answer(chunk) == expected


def initialize(http: httpx2.Client, server: HttpServer) -> dict[str, str]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    answer = http.post(server.url, json=body)
    assert answer.headers["content-type"] == "application/json" and answer.json()["id"] == 1
    headers = {"mcp-session-id": answer.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    assert http.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return headers


def client_port(answer: httpx2.Response) -> int:
    return int(answer.extensions["network_stream"].get_extra_info("client_addr")[1])


def call(name: str, arguments: dict[str, Any], request_id: int, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments, **({"_meta": meta} if meta else {})}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def obsidian_http(vault: Path, folder: Path) -> HttpServer:
    return HttpServer.python("obsidian_mcp", ["--vault", str(vault), "--index-dir", str(folder / "index")], folder)


def assert_no_error_logged(server: HttpServer) -> None:
    assert not [r for r in server.records() if r["level"] in ("ERROR", "CRITICAL")], server.records()


async def test_calls_answered_at_once_come_as_json_on_one_connection(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(REPO / "examples" / "vault", vault, symlinks=True)
    server = obsidian_http(vault, tmp_path / "http")
    accept = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {server.token}"}
    try:
        with httpx2.Client(headers=accept, timeout=30) as http:
            session = initialize(http, server)
            answers = [
                http.post(server.url, json=call("read_note", {"path": "Projects/Alpha.md"}, 2), headers=session),
                http.post(server.url, json=call("read_note", {"path": "No Such Note"}, 3), headers=session),
                http.post(server.url, json=call("list_tags", {}, 4, meta={"progressToken": "p"}), headers=session),
            ]
            for request_id, answer in enumerate(answers, 2):
                assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
                assert answer.json()["id"] == request_id and "result" in answer.json()
            assert json.loads(answers[1].json()["result"]["content"][0]["text"])["error"] == "not_found"
            assert len({client_port(answer) for answer in answers}) == 1  # the connection was kept
    finally:
        assert server.stop() == 0
    assert_no_error_logged(server)
    server.assert_clean()
