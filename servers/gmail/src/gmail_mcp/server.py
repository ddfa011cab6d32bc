"""Assembles the gmail-mcp server: the contract call path, the Gmail client, and the tool modules."""

from __future__ import annotations

import functools

from gmail_mcp.api.client import ClientSettings, GmailClient
from gmail_mcp.config import Settings
from gmail_mcp.errors import to_contract
from gmail_mcp.labels import LabelDirectory
from gmail_mcp.models import ContractServer
from gmail_mcp.reader import MailReader
from gmail_mcp.tools import labels, messages

INSTRUCTIONS = (
    "Work with the user's Gmail mailbox. Errors are JSON objects {error, message, details}; "
    "auth_required means the user must run the command in details.reauth_command."
)
WRITE_TOOLS: tuple[str, ...] = (
    "send_email",
    "create_draft",
    "send_draft",
    "delete_draft",
    "modify_labels",
    "trash_email",
)


def build_server(settings: Settings) -> ContractServer:
    server = ContractServer(
        name="gmail-mcp",
        instructions=INSTRUCTIONS,
        mapper=functools.partial(to_contract, read_only=settings.read_only),
        read_only=settings.read_only,
        write_tools=WRITE_TOOLS,
        crash_tools=settings.crash_tools,
    )
    client = GmailClient(
        ClientSettings(
            token_file=settings.token_file,
            api_endpoint=settings.api_endpoint,
            timeout_seconds=settings.timeout_seconds,
            backoff_base_seconds=settings.backoff_base_seconds,
        )
    )
    labels.register(server, client)
    messages.register(server, MailReader(client, LabelDirectory(), settings.download_dir))
    return server
