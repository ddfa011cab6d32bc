"""Mail as MCP resources: `gmail://message/{id}` and `gmail://thread/{id}` (`text/plain`: the headers,
then the body as get_email renders it; a thread is its messages, oldest first), and the 20 newest
unread inbox messages in `resources/list`.

Accounts. A URI without an account reads the default account, as a tool call without `account`
does (GMAIL_MCP_ACCOUNT, else the only account, else `default`); `gmail://ACCOUNT/message/{id}` and
`gmail://ACCOUNT/thread/{id}` name one (a name or an address, as `account` takes). The listing is the
default account's, so its URIs name no account.

An id that is not hexadecimal names no message: `not_found`, and nothing is asked of Gmail.
Failures reach the client through `ContractServer` as JSON-RPC errors carrying the contract object.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import mcp_types

from gmail_mcp.accounts import Accounts, Mail
from gmail_mcp.api.errors import ApiNotFound
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.arguments import ATTACHMENT_ID_PATTERN, GMAIL_ID_PATTERN

if TYPE_CHECKING:
    from gmail_mcp.results import AttachmentText, Email, Thread

TEXT = "text/plain"
UNREAD_INBOX = "in:inbox is:unread"
UNREAD_LISTED = 20
MESSAGE_BODY_CHARS = 200_000  # get_email's largest page
THREAD_BODY_CHARS = 50_000  # each message of a thread; get_email reads the rest
ATTACHMENT_CHARS = 200_000  # read_attachment's largest page
_HEX_ID = re.compile(GMAIL_ID_PATTERN)
_ATTACHMENT_ID = re.compile(ATTACHMENT_ID_PATTERN)


def register(server: ContractServer, accounts: Accounts) -> None:
    def message(account: str | None, id: str) -> str:
        with accounts.reading(account) as mail:
            return render_email(mail.reader.email(_checked("message", id), 0, MESSAGE_BODY_CHARS))

    def thread(account: str | None, id: str) -> str:
        with accounts.reading(account) as mail:
            return render_thread(mail.reader.thread(_checked("thread", id), THREAD_BODY_CHARS))

    def attachment(account: str | None, id: str, attachment_id: str) -> str:
        with accounts.reading(account) as mail:
            checked = _checked_attachment(attachment_id)
            return render_attachment(mail.reader.read_attachment(_checked("message", id), checked, 0, ATTACHMENT_CHARS))

    described = {
        "message": "A message: its headers, then its body as plain text (HTML converted), as get_email reads it.",
        "thread": "A conversation: each of its messages, oldest first, headers then body.",
        "attachment": "An attachment's text (PDF, Office, HTML, CSV, text, mail), as read_attachment reads it.",
    }

    @server.resource(
        "gmail://message/{id}", name="message", title="Gmail message", description=described["message"], mime_type=TEXT
    )
    def default_message(id: str) -> str:
        return message(None, id)

    @server.resource(
        "gmail://thread/{id}", name="thread", title="Gmail thread", description=described["thread"], mime_type=TEXT
    )
    def default_thread(id: str) -> str:
        return thread(None, id)

    @server.resource(
        "gmail://{account}/message/{id}",
        name="account_message",
        title="Gmail message of an account",
        description=described["message"] + " ACCOUNT is an account's name or address (list_accounts).",
        mime_type=TEXT,
    )
    def account_message(account: str, id: str) -> str:
        return message(account, id)

    @server.resource(
        "gmail://{account}/thread/{id}",
        name="account_thread",
        title="Gmail thread of an account",
        description=described["thread"] + " ACCOUNT is an account's name or address (list_accounts).",
        mime_type=TEXT,
    )
    def account_thread(account: str, id: str) -> str:
        return thread(account, id)

    @server.resource(
        "gmail://message/{id}/attachment/{attachment_id}",
        name="attachment",
        title="Gmail attachment as text",
        description=described["attachment"],
        mime_type=TEXT,
    )
    def default_attachment(id: str, attachment_id: str) -> str:
        return attachment(None, id, attachment_id)

    @server.resource(
        "gmail://{account}/message/{id}/attachment/{attachment_id}",
        name="account_attachment",
        title="Gmail attachment of an account, as text",
        description=described["attachment"] + " ACCOUNT is an account's name or address (list_accounts).",
        mime_type=TEXT,
    )
    def account_attachment(account: str, id: str, attachment_id: str) -> str:
        return attachment(account, id, attachment_id)

    @server.resource_list
    def unread() -> list[mcp_types.Resource]:
        with accounts.reading(None) as mail:
            return unread_resources(mail)


def unread_resources(mail: Mail) -> list[mcp_types.Resource]:
    """The newest unread inbox messages (search_emails's order: newest first) as resources."""
    found = mail.reader.search(UNREAD_INBOX, UNREAD_LISTED, None, False)
    return [
        mcp_types.Resource(
            uri=f"gmail://message/{summary.id}",
            name=summary.subject or "(no subject)",
            title=summary.subject or "(no subject)",
            description=f"unread, from {summary.from_}" + (f", {summary.date}" if summary.date else ""),
            mime_type=TEXT,
        )
        for summary in found.messages
    ]


def render_email(email: Email) -> str:
    """The headers, a blank line, the body; what get_email warns about, bracketed, at the end."""
    headers = [
        ("Subject", email.subject),
        ("From", email.from_),
        ("To", email.to),
        ("Cc", email.cc),
        ("Bcc", email.bcc),
        ("Reply-To", email.reply_to),
        ("Date", email.date),
        ("Labels", ", ".join(email.labels)),
        ("Gmail-Id", f"{email.id} (thread {email.thread_id})"),
        ("Attachments", ", ".join(f"{a.filename} ({a.mime_type}, {a.size} bytes)" for a in email.attachments)),
    ]
    from gmail_mcp.mail.render import message_text  # the MIME stack: with the first message read

    return message_text(headers, email.body, [f"{w.code}: {w.message}" for w in email.warnings])


def render_attachment(found: AttachmentText) -> str:
    """The attachment's text (its first ATTACHMENT_CHARS characters); its warnings, bracketed, at the end."""
    notes = [f"{w.code}: {w.message}" for w in found.warnings]
    return found.text.rstrip("\n") + "\n" + ("".join(f"\n[{note}]" for note in notes) + "\n" if notes else "")


def render_thread(found: Thread) -> str:
    """Each message as `render_email` renders it, oldest first, under a numbered rule."""
    count = len(found.messages)
    parts = [f"Gmail thread {found.thread_id}: {count} message{'' if count == 1 else 's'}, oldest first\n"]
    for number, email in enumerate(found.messages, 1):
        parts.append(f"===== message {number} of {count} =====\n{render_email(email)}")
    return "\n".join(parts)


def _checked_attachment(attachment_id: str) -> str:
    """An attachment id of the right alphabet, else `not_found` at once."""
    if not _ATTACHMENT_ID.fullmatch(attachment_id):
        raise ApiNotFound("attachment", attachment_id[:100])
    return attachment_id


def _checked(resource: str, id: str) -> str:
    """A hexadecimal Gmail id, else `not_found` at once: no message or thread has such an id."""
    if not _HEX_ID.fullmatch(id):
        raise ApiNotFound(resource, id[:100])
    return id
