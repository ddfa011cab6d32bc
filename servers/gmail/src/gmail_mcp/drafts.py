"""Drafts, their whole life: create and send (each at most once, through `Delivery`), list, delete."""

from __future__ import annotations

from typing import Any

from gmail_mcp import warnings
from gmail_mcp.api.errors import ApiNotFound
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.delivery import Delivery
from gmail_mcp.mail.headers import header_map, raw_header
from gmail_mcp.mail.parse import summarize
from gmail_mcp.outgoing import Composer, Outgoing
from gmail_mcp.results import CreatedDraft, DeletedDraft, DraftList, DraftSummary, SentDraft


def _message_of(draft: dict[str, Any]) -> dict[str, Any]:
    message = draft.get("message")
    return message if isinstance(message, dict) else {}


class Drafts:
    def __init__(self, mailbox: MailboxApi, composer: Composer, delivery: Delivery) -> None:
        self.mailbox = mailbox
        self.composer = composer
        self.delivery = delivery

    def create(self, outgoing: Outgoing) -> CreatedDraft:
        """Save a composed message as a draft, at most once."""
        built = self.composer.compose(outgoing)
        done = self.delivery.create_draft(built)
        message = _message_of(done.answer)
        return CreatedDraft(
            draft_id=done.answer["id"],
            message_id=str(message.get("id") or ""),
            thread_id=str(message.get("threadId") or built.thread_id or ""),
            warnings=done.warnings,
        )

    def list(self, max_results: int, page_token: str | None) -> DraftList:
        """One page of drafts in two round trips: drafts.list, then one batch of drafts.get (format=metadata).

        A draft deleted between the two is left out; one whose details could not be fetched is listed
        by id only and named in a PARTIAL_RESULTS warning.
        """
        listed = self.mailbox.list_drafts(max_results, page_token)
        items = [d for d in listed.get("drafts", []) if isinstance(d, dict) and isinstance(d.get("id"), str)]
        details = self.mailbox.get_drafts([item["id"] for item in items])
        drafts, failed = [], []
        for item in items:
            draft_id = item["id"]
            if isinstance(details.failed.get(draft_id), ApiNotFound):
                continue
            message = _message_of(details.succeeded.get(draft_id, {}))
            if not isinstance(message.get("id"), str):
                failed.append(draft_id)
                message_id = str(_message_of(item).get("id") or "")
                drafts.append(DraftSummary(draft_id=draft_id, message_id=message_id, to="", subject="", snippet=""))
                continue
            summary = summarize(message, {})
            drafts.append(
                DraftSummary(
                    draft_id=draft_id,
                    message_id=message["id"],
                    to=summary.to,
                    subject=summary.subject,
                    snippet=summary.snippet,
                )
            )
        result = DraftList(drafts=drafts, next_page_token=listed.get("nextPageToken") or None)
        if failed:
            notice = f"details of {len(failed)} drafts could not be fetched; they are listed by id only"
            result.warnings.append(warnings.partial_results(notice, draft_ids=failed))
        return result

    def send(self, draft_id: str) -> SentDraft:
        """Send a draft at most once; not_found if there is no such draft."""
        message = _message_of(self.mailbox.get_draft(draft_id))
        payload = message.get("payload")
        headers = header_map(payload.get("headers", []) if isinstance(payload, dict) else [])
        done = self.delivery.send_draft(draft_id, raw_header(headers, "message-id") or None)
        return SentDraft(
            id=done.answer["id"],
            thread_id=done.answer.get("threadId") or message.get("threadId") or done.answer["id"],
            warnings=done.warnings,
        )

    def delete(self, draft_id: str) -> DeletedDraft:
        """Delete a draft for good (Gmail has no trash for drafts)."""
        self.mailbox.delete_draft(draft_id)
        return DeletedDraft(deleted=draft_id)
