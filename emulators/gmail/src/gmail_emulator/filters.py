"""Gmail filters (``users.settings.filters``): validation, duplicate detection, criteria -> query.

Sources (read when this was written):

* Reference, https://developers.google.com/gmail/api/reference/rest/v1/users.settings.filters and
  the packaged discovery document: ``Filter`` = ``{id, criteria, action}``; ``FilterCriteria`` =
  ``from, to, subject, query, negatedQuery, hasAttachment, excludeChats, size, sizeComparison``
  (``unspecified | smaller | larger``); ``FilterAction`` = ``addLabelIds, removeLabelIds,
  forward``. The API has list, get, create and delete (no update: delete and create again).
  ``subject`` is a "case-insensitive phrase" whose surrounding whitespace is trimmed and inner
  runs collapsed; ``to`` covers To, Cc and Bcc and may be a bare local part.
* Guide, https://developers.google.com/workspace/gmail/api/guides/filter_settings: "Any query using
  Gmail's advanced search syntax can also be used in a filter"; with several criteria a message
  must meet all of them; filters apply to single messages, not whole threads. Actions:
  ``removeLabelIds INBOX`` archives, ``UNREAD`` marks read, ``SPAM`` is "never send to spam",
  ``addLabelIds TRASH`` deletes (to Trash), ``STARRED``/``IMPORTANT``; "each filter can only
  have one user-defined label"; ``forward`` must be a verified forwarding address
  (https://developers.google.com/workspace/gmail/api/guides/forwarding_settings).
* A filter cannot send mail to Spam (gmailctl, internal/engine/filter/convert.go: "Gmail filters
  don't allow one to send messages to spam directly").
* Unknown label in an action: ``400 invalidArgument "Invalid label: <id>"`` (GAM-team/GAM#365).
* Creating a filter identical to an existing one is refused with the message "Filter already
  exists" (elie222/inbox-zero matches exactly that text; a client test mock answers it with
  HTTP 400). The emulator answers ``400 failedPrecondition`` / ``FAILED_PRECONDITION``.

Wording of the other validation errors (empty criteria/action, size without comparison, two user
labels, unverified forward address) is the emulator's own: the status (400 invalidArgument) is
what matters to a client.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import ApiError, failed_precondition, invalid

CRITERIA_STRINGS = ("from", "to", "subject", "query", "negatedQuery")
CRITERIA_BOOLS = ("hasAttachment", "excludeChats")
SIZE_COMPARISONS = ("unspecified", "smaller", "larger")
ACTION_LISTS = ("addLabelIds", "removeLabelIds")
# Labels a filter may never add or remove (like messages.modify, see mailbox.UNMODIFIABLE_LABELS).
UNMODIFIABLE = frozenset({"SENT", "DRAFT"})


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def normalize_criteria(raw: Any) -> dict[str, Any]:
    """Validate a ``FilterCriteria`` object; return it with unset/empty fields dropped."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise invalid('Invalid value for "criteria"', location="criteria")
    unknown = set(raw) - set(CRITERIA_STRINGS) - set(CRITERIA_BOOLS) - {"size", "sizeComparison"}
    if unknown:
        raise invalid(f"Invalid JSON payload received. Unknown name \"{sorted(unknown)[0]}\" at 'filter.criteria'")
    out: dict[str, Any] = {}
    for key in CRITERIA_STRINGS:
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise invalid(f'Invalid value for "criteria.{key}"', location=f"criteria.{key}")
        value = _collapse(value) if key == "subject" else value.strip()
        if value:
            out[key] = value
    for key in CRITERIA_BOOLS:
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, bool):
            raise invalid(f'Invalid value for "criteria.{key}"', location=f"criteria.{key}")
        if value:
            out[key] = True
    size, comparison = raw.get("size"), raw.get("sizeComparison")
    if comparison is not None and comparison not in SIZE_COMPARISONS:
        raise invalid(f"Invalid value at 'filter.criteria.size_comparison' ({comparison})")
    if size is not None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise invalid('Invalid value for "criteria.size"', location="criteria.size")
        if comparison in (None, "unspecified"):
            raise invalid("Filter criteria size needs sizeComparison 'larger' or 'smaller'")
        out["size"] = size
        out["sizeComparison"] = comparison
    elif comparison not in (None, "unspecified"):
        raise invalid("Filter criteria sizeComparison needs a size")
    if not out:
        raise invalid("Filter criteria must not be empty: set at least one criterion")
    return out


def normalize_action(raw: Any) -> dict[str, Any]:
    """Validate the shape of a ``FilterAction``; return it with empty fields dropped."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise invalid('Invalid value for "action"', location="action")
    unknown = set(raw) - set(ACTION_LISTS) - {"forward"}
    if unknown:
        raise invalid(f"Invalid JSON payload received. Unknown name \"{sorted(unknown)[0]}\" at 'filter.action'")
    out: dict[str, Any] = {}
    for key in ACTION_LISTS:
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise invalid(f'Invalid value for "action.{key}"', location=f"action.{key}")
        if value:
            out[key] = list(dict.fromkeys(value))
    forward = raw.get("forward")
    if forward is not None:
        if not isinstance(forward, str):
            raise invalid('Invalid value for "action.forward"', location="action.forward")
        if forward.strip():
            out["forward"] = forward.strip()
    if not out:
        raise invalid("Filter action must not be empty: add or remove a label, or forward")
    return out


def check_action(
    action: Mapping[str, Any],
    label_types: Mapping[str, str],
    forwarding: Mapping[str, str],
) -> None:
    """Check an action against the mailbox: labels exist and may be used, forward is verified.

    ``label_types``: label id -> ``"system"``/``"user"``; ``forwarding``: casefolded forwarding
    address -> verification status."""
    add = list(action.get("addLabelIds", []))
    remove = list(action.get("removeLabelIds", []))
    for lid in add + remove:
        if lid not in label_types or lid in UNMODIFIABLE:
            raise invalid(f"Invalid label: {lid}")
    if "SPAM" in add:
        raise invalid("Invalid label: SPAM (a filter cannot send messages to Spam)")
    user_labels = [lid for lid in add if label_types.get(lid) == "user"]
    if len(user_labels) > 1:
        raise invalid("A filter can add at most one user label")
    both = [lid for lid in add if lid in remove]
    if both:
        raise invalid(f"Label {both[0]} cannot be both added and removed")
    forward = action.get("forward")
    if forward is not None and forwarding.get(str(forward).casefold()) != "accepted":
        raise invalid(f"Invalid forwarding address: {forward} is not a verified forwarding address")


def filter_key(criteria: Mapping[str, Any], action: Mapping[str, Any]) -> tuple[Any, ...]:
    """What makes two filters the same: equal criteria (case-insensitive text) and equal action."""
    crit = tuple(
        sorted((k, v.casefold() if isinstance(v, str) and k != "sizeComparison" else v) for k, v in criteria.items())
    )
    act = (
        tuple(sorted(action.get("addLabelIds", []))),
        tuple(sorted(action.get("removeLabelIds", []))),
        str(action.get("forward", "")).casefold(),
    )
    return crit, act


def duplicate_error() -> ApiError:
    return failed_precondition("Filter already exists")


def _group(op: str, value: str) -> str:
    return f"{op}:({value})"


def criteria_to_query(criteria: Mapping[str, Any]) -> str:
    """The Gmail search query equivalent to a filter's criteria (all criteria must hold).

    ``from``/``to`` become ``from:(...)``/``to:(...)`` (every word must match; ``OR`` inside
    works as in Gmail), ``subject`` a phrase ``subject:"..."``, ``query`` a group ``(...)``,
    ``negatedQuery`` ``-(...)``, ``hasAttachment`` ``has:attachment``, ``excludeChats``
    ``-is:chat``, ``size``+``sizeComparison`` ``larger:N``/``smaller:N`` (bytes). The result
    is evaluated by ``gmail_emulator.query`` exactly like a ``messages.list`` ``q``.
    """
    parts: list[str] = []
    if criteria.get("from"):
        parts.append(_group("from", str(criteria["from"])))
    if criteria.get("to"):
        parts.append(_group("to", str(criteria["to"])))
    subject = _collapse(str(criteria.get("subject") or ""))
    if subject:
        parts.append(f'subject:"{subject}"' if '"' not in subject else _group("subject", subject))
    if criteria.get("query"):
        parts.append(f"({criteria['query']})")
    if criteria.get("negatedQuery"):
        parts.append(f"-({criteria['negatedQuery']})")
    if criteria.get("hasAttachment"):
        parts.append("has:attachment")
    if criteria.get("excludeChats"):
        parts.append("-is:chat")
    comparison = criteria.get("sizeComparison")
    if criteria.get("size") is not None and comparison in ("larger", "smaller"):
        parts.append(f"{comparison}:{int(criteria['size'])}")
    return " ".join(parts)
