"""Every warning a gmail-mcp success can carry, built here and nowhere else: one function per code.

A warning reports a problem that did not stop the work (specs/data-model.md, "Warning"). The
domain attaches them to its typed results; tools pass them through untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gmail_mcp.api.errors import GmailFailure
from gmail_mcp.errors import code_for
from gmail_mcp.models import ToolWarning

CONTENT_TRUNCATED = "CONTENT_TRUNCATED"
CONTENT_DROPPED = "CONTENT_DROPPED"
PARTIAL_RESULTS = "PARTIAL_RESULTS"
DELIVERY_CONFIRMED_AFTER_ERROR = "DELIVERY_CONFIRMED_AFTER_ERROR"
NO_TEXT_LAYER = "NO_TEXT_LAYER"


def content_truncated(shown: int, total: int, next_body_offset: int) -> ToolWarning:
    """A body answered in pages: this page shows `shown` of `total` characters; the next one starts there."""
    return ToolWarning(
        code=CONTENT_TRUNCATED,
        message=f"body cut at {shown} of {total} characters; call get_email with body_offset={next_body_offset} "
        "for more",
        next_body_offset=next_body_offset,
    )


def text_continues(shown: int, total: int, next_offset: int) -> ToolWarning:
    """A document's text answered in pages: this page shows `shown` of `total` characters."""
    return ToolWarning(
        code=CONTENT_TRUNCATED,
        message=f"text cut at {shown} of {total} characters; call read_attachment with offset={next_offset} for more",
        next_offset=next_offset,
    )


_CUT_UNITS = {"pages": "pages", "cells": "cells", "size": "characters", "time": "pages or sheets"}


def document_cut(reason: str, read: int, total: int | None) -> ToolWarning:
    """Reading a document stopped at a limit (`reason`: pages, cells, size, time): its text ends there."""
    unit = _CUT_UNITS.get(reason, "parts")
    of_total = f" of {total}" if total is not None else ""
    limit = "the time allowed for one document" if reason == "time" else f"the {reason} limit"
    context: dict[str, object] = {"reason": reason, "read": read}
    if total is not None:
        context["total"] = total
    return ToolWarning(
        code=CONTENT_TRUNCATED,
        message=f"the document was read up to {read}{of_total} {unit} ({limit}); the rest is not in the text",
        **context,
    )


def no_text_layer(pages: int) -> ToolWarning:
    """A PDF whose pages hold no text at all (scanned, or pictures of text): nothing to read without OCR."""
    return ToolWarning(
        code=NO_TEXT_LAYER,
        message=f"none of the PDF's {pages} pages has a text layer (scanned or images); there is no OCR here",
        pages=pages,
    )


def content_dropped(problems: Sequence[str], what: str = "the body") -> ToolWarning:
    """Parts of a body that could not be decoded were left out; `problems` says which (at most ten)."""
    notice = f"parts of {what} could not be decoded"
    return ToolWarning(code=CONTENT_DROPPED, message=notice, problems=list(problems[:10]))


def partial_results(
    message: str, *, failed: Mapping[str, GmailFailure] | None = None, **ids: Sequence[str]
) -> ToolWarning:
    """Some items of a batch failed and the rest of the answer stands. The context names them: lists of
    ids (e.g. `message_ids=[...]`), or `failed`, each item with the contract code it would have had alone."""
    context: dict[str, object] = {key: list(value) for key, value in ids.items()}
    if failed is not None:
        context["failed"] = [{"id": key, "error": code_for(f), "reason": str(f)} for key, f in failed.items()]
    return ToolWarning(code=PARTIAL_RESULTS, message=message, **context)


def bulk_incomplete(
    action: str, done: int, not_done: int, failed: Mapping[str, GmailFailure], stopped: GmailFailure | None
) -> ToolWarning:
    """A change by query did not reach every matching message: `done` were changed, `not_done` were not —
    those in `failed` refused on their own (ten are named), the rest never tried because `stopped` ended the run."""
    message = f"{not_done} of {done + not_done} messages were not {action}; {done} were"
    context: dict[str, object] = {"done": done, "not_done": not_done}
    if failed:
        message += f"; {len(failed)} failed on their own"
        context["failed"] = [
            {"id": key, "error": code_for(f), "reason": str(f)} for key, f in list(failed.items())[:10]
        ]
    if stopped is not None:
        message += f"; stopped by {code_for(stopped)}: {stopped}"
        context["error"] = code_for(stopped)
    return ToolWarning(code=PARTIAL_RESULTS, message=message, **context)


def parts_not_carried(names: Sequence[str]) -> ToolWarning:
    """A forward (or a draft update) could not carry over some parts of the original: Gmail does not give
    out their bytes on their own (an attached message it only shows expanded). `attachments` names them."""
    return ToolWarning(
        code=CONTENT_DROPPED,
        message=f"{len(names)} attachments of the original could not be carried over and were left out",
        attachments=list(names[:10]),
    )


def delivery_confirmed_after_error(failure: GmailFailure) -> ToolWarning:
    """A send or draft request failed on the way back, yet Gmail was found to have carried it out."""
    return ToolWarning(
        code=DELIVERY_CONFIRMED_AFTER_ERROR,
        message="the request failed on the way back, but Gmail did carry it out (found afterwards); do not repeat it",
        failure=str(failure),
    )
