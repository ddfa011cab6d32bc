"""Drafts: list, send (at most once, through `Delivery`), delete."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from gmail_mcp.api.client import GmailClient
from gmail_mcp.api.errors import ApiNotFound, AuthRequired, GmailFailure
from gmail_mcp.delivery import Delivery
from gmail_mcp.mail.headers import header_map, raw_header
from gmail_mcp.mail.parse import summarize


def _get_draft(users: Any, draft_id: str) -> Any:
    return users.drafts().get(userId="me", id=draft_id, format="metadata")


def _message_of(draft: dict[str, Any]) -> dict[str, Any]:
    message = draft.get("message")
    return message if isinstance(message, dict) else {}


def _row(draft_id: str, message_id: str, summary: dict[str, Any]) -> dict[str, Any]:
    return {
        "draft_id": draft_id,
        "message_id": message_id,
        "to": summary.get("to", ""),
        "subject": summary.get("subject", ""),
        "snippet": summary.get("snippet", ""),
    }


class DraftBox:
    def __init__(self, client: GmailClient, delivery: Delivery) -> None:
        self.client = client
        self.delivery = delivery

    def list(self, max_results: int, page_token: str | None) -> tuple[list[dict[str, Any]], list[str], str | None]:
        """(draft summaries, ids of drafts whose details could not be fetched, next page token).

        Two round trips: drafts.list, then one batch of drafts.get (format=metadata). A draft
        deleted between the two is left out.
        """
        listed = self.client.read(
            lambda users: users.drafts().list(userId="me", maxResults=max_results, pageToken=page_token or None),
            "draft",
        )
        items = [d for d in listed.get("drafts", []) if isinstance(d, dict) and isinstance(d.get("id"), str)]
        requests: list[tuple[str, Callable[[Any], Any]]] = [
            (d["id"], functools.partial(_get_draft, draft_id=d["id"])) for d in items
        ]
        got = self.client.batch(requests, "draft") if requests else {}
        drafts, failed = [], []
        for item in items:
            draft = got.get(item["id"])
            if isinstance(draft, AuthRequired):
                raise draft
            if isinstance(draft, ApiNotFound):
                continue
            message = _message_of(draft) if isinstance(draft, dict) else {}
            if isinstance(draft, GmailFailure) or not isinstance(message.get("id"), str):
                failed.append(item["id"])
                drafts.append(_row(item["id"], str(_message_of(item).get("id") or ""), {}))
            else:
                drafts.append(_row(item["id"], message["id"], summarize(message, {})))
        return drafts, failed, listed.get("nextPageToken") or None

    def send(self, draft_id: str) -> dict[str, Any]:
        """Send a draft at most once; not_found if there is no such draft."""
        draft = self.client.read(functools.partial(_get_draft, draft_id=draft_id), "draft", draft_id)
        payload = _message_of(draft).get("payload")
        headers = header_map(payload.get("headers", []) if isinstance(payload, dict) else [])
        message_id = raw_header(headers, "message-id") or None
        done = self.delivery.send_draft(draft_id, message_id)
        return {
            "id": done.result["id"],
            "thread_id": done.result.get("threadId") or _message_of(draft).get("threadId") or done.result["id"],
            "warnings": done.warnings,
        }

    def delete(self, draft_id: str) -> dict[str, Any]:
        """Delete a draft (drafts are deleted for good: Gmail has no trash for them).

        Retried like any idempotent write; a 404 on a retry means an earlier attempt whose answer
        was lost did delete it.
        """
        attempts = 0

        def build(users: Any) -> Any:
            nonlocal attempts
            attempts += 1
            return users.drafts().delete(userId="me", id=draft_id)

        try:
            self.client.write(build, "draft", draft_id)
        except ApiNotFound:
            if attempts < 2:
                raise
        return {"deleted": draft_id}
