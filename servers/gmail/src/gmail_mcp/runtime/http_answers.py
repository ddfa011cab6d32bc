"""An answer that comes alone goes back as one JSON body, not as an event stream of one event.

The SDK's streamable HTTP transport (protocol versions before 2026-07-28) answers every request
POST with `text/event-stream`, so that messages about the call (progress notifications) can go
before the answer. Its client stops reading such a stream once it has the answer and so closes
the connection: every call paid a new TCP connection, and both sides the event-stream framing.
Streamable HTTP lets the server choose per POST between `application/json` and an event stream
(clients must accept both), and the SDK's own 2026-07-28 transport already holds back the event
stream until there is something to stream. `LoneAnswerAsJson` does the same for the older one:

* it holds the stream's response start until the first event. If that event is the answer, the
  stream would carry nothing else (the SDK ends it right after an answer): the answer goes as
  `application/json` with a Content-Length, and the client keeps its connection;
* anything else first (a progress notification, or sse-starlette's keep-alive ping after 15 s of
  silence) sends the held start and passes the stream on as it comes, so progress still reaches a
  client that sent a progressToken while the work runs, and a slow call still gets bytes in time.
"""

from __future__ import annotations

import pydantic_core
from starlette.types import ASGIApp, Message, Receive, Scope, Send

EVENT_STREAM = b"text/event-stream"
STREAM_ONLY_HEADERS = (b"content-type", b"x-accel-buffering")  # the latter tells proxies not to buffer a stream


class LoneAnswerAsJson:
    """ASGI middleware: a POST whose event stream opens with the answer is answered in JSON instead."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        reply = _Reply(send)
        try:
            await self.app(scope, receive, reply.send)
        finally:
            await reply.release()  # never started? then the server sees what the app sent, as without us


class _Reply:
    """The `send` of one POST: holds an event stream's start until its first event decides its form."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._held: Message | None = None  # an event stream's response start, not sent yet
        self._deciding = True  # until the first message that is not an event stream's start
        self._answered = False  # sent as JSON: what the app still sends is the end of a stream we never opened

    async def send(self, message: Message) -> None:
        if self._answered:
            return
        if self._deciding and message["type"] == "http.response.start" and _is_event_stream(message):
            self._held = message
            return
        if self._deciding and self._held is not None and message["type"] == "http.response.body":
            answer = lone_answer(message.get("body", b""))
            if answer is not None:
                start, self._held, self._answered = self._held, None, True
                await self._send_json(start, answer)
                return
        await self.release()
        await self._send(message)

    async def release(self) -> None:
        """Stop deciding: send the held start, if any, as it was."""
        self._deciding = False
        held, self._held = self._held, None
        if held is not None:
            await self._send(held)

    async def _send_json(self, start: Message, answer: bytes) -> None:
        headers = [(name, value) for name, value in start["headers"] if name not in STREAM_ONLY_HEADERS]
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode("ascii"))]
        await self._send({"type": "http.response.start", "status": start["status"], "headers": headers})
        await self._send({"type": "http.response.body", "body": answer, "more_body": False})


def _is_event_stream(start: Message) -> bool:
    if start["status"] != 200:
        return False
    return any(
        name == b"content-type" and value.split(b";")[0].strip() == EVENT_STREAM for name, value in start["headers"]
    )


def lone_answer(chunk: bytes) -> bytes | None:
    """The JSON-RPC answer (result or error) that `chunk` holds as exactly one `message` event, else None.

    sse-starlette sends each event in one body message; a comment (ping), an id (a resumable stream),
    a second event or a notification or request from the server is not a lone answer.
    """
    lines = chunk.splitlines()
    if len(lines) < 2 or lines[-1] or not chunk.endswith((b"\n\n", b"\r\r", b"\r\n\r\n")):
        return None
    data: list[bytes] = []
    for line in lines[:-1]:
        field, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if field == b"data":
            data.append(value)
        elif field != b"event" or value != b"message":
            return None
    answer = b"\n".join(data)
    try:
        message = pydantic_core.from_json(answer)
    except ValueError:
        return None
    is_answer = isinstance(message, dict) and "id" in message and "method" not in message
    return answer if is_answer and ("result" in message or "error" in message) else None
