"""Ready-made prompts (slash commands in Claude Code): `triage_inbox` and `draft_reply`.

Each checks its arguments as the tools would (a message id must be hexadecimal, a query at most 2000
characters: else `parse_error` naming the field) and answers one user message that says what to look
at and which tools to use. They ask nothing of Gmail: the model reads the mail, through the tools,
when it acts on the prompt. `draft_reply` asks for a draft, never a send.

No prompt takes an account: Claude Code passes a slash command's arguments only up to the first space
(2.1.332), so the words of a query or an intent after the first would land in a trailing `account`.
The default account is meant; ask the model for another in words. For the same reason `intent` is
optional: without it the model asks what the reply should say.
"""

from __future__ import annotations

import json
from typing import Annotated

from pydantic import Field

from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools.arguments import MessageId


def register(server: ContractServer) -> None:
    @server.prompt(title="Triage the inbox")
    def triage_inbox(
        query: Annotated[str, Field(max_length=2000, description="Gmail search of the mail to triage")] = (
            "in:inbox is:unread"
        ),
    ) -> str:
        """Sort the mail a search finds into what needs a reply, an action, or nothing, and propose the changes."""
        return (
            f"Triage the mail of my Gmail inbox that this search finds: {query}\n"
            "Use the gmail tools.\n\n"
            f"1. List it: search_emails(query={json.dumps(query, ensure_ascii=False)}, max_results=50); page on "
            "with next_page_token while there are more.\n"
            "2. Where the sender, subject and snippet are not enough, read the message with get_email(message_id) "
            "or the whole conversation with get_thread(thread_id).\n"
            "3. Put every message in one group: needs a reply from me; needs another action (say which); to read "
            "later; can be archived; looks like spam or phishing.\n\n"
            "Then show me the groups, most urgent first, each message with its sender, subject and one line on "
            "why. Propose changes, but make none until I agree: archiving is modify_labels(message_ids=[...], "
            'remove_labels=["INBOX"]), marking as read is remove_labels=["UNREAD"], add_labels files a message '
            "under a label, trash_email moves it to the trash. A reply is only ever a draft "
            "(create_draft with reply_to_message_id); do not send anything."
        )

    @server.prompt(title="Draft a reply")
    def draft_reply(
        message_id: MessageId,
        intent: Annotated[
            str | None,
            Field(min_length=1, max_length=4000, description="what the reply should say; if not given, you are asked"),
        ] = None,
    ) -> str:
        """Write a reply to one message as a Gmail draft, saying what you want; it is never sent."""
        wanted = (
            f"What I want the reply to say: {intent}"
            if intent is not None
            else "Before you write anything, ask me what the reply should say."
        )
        return (
            f"Draft a reply to the Gmail message {message_id}. Use the gmail tools.\n{wanted}\n\n"
            f'1. Read the message: get_email(message_id="{message_id}"). For the conversation before it, '
            "get_thread(thread_id=<its thread_id>).\n"
            "2. Write the reply in the language and tone of the conversation. Say what I want and nothing I did "
            "not ask for; leave a placeholder like [date?] for anything you would have to guess.\n"
            f'3. Save it as a draft: create_draft(reply_to_message_id="{message_id}", subject="Re: <its '
            'subject>", body=...). That threads it and addresses it to the sender (reply_all=true: to everyone '
            "on the message). To change it later: update_draft(draft_id, ...).\n\n"
            "Do not send it: never call send_email or send_draft. Show me the draft and its draft_id; I will "
            "review it and send it myself."
        )
