"""Assembles the gmail-mcp server: the contract call path, the Gmail client, the domain, and the tool modules."""

from __future__ import annotations

import functools
import importlib.metadata

from gmail_mcp.api.access import Access
from gmail_mcp.api.client import ClientSettings, GmailClient
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.config import Settings
from gmail_mcp.delivery import Delivery
from gmail_mcp.drafts import Drafts
from gmail_mcp.errors import to_contract
from gmail_mcp.labels import LabelDirectory
from gmail_mcp.organizer import Organizer
from gmail_mcp.outgoing import Composer
from gmail_mcp.reader import MailReader
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.sender import Sender
from gmail_mcp.tools import compose, labels, messages, organize

INSTRUCTIONS = (
    "Work with the user's Gmail mailbox. Errors are JSON objects {error, message, details}; "
    "auth_required means the user must run the command in details.reauth_command."
)


def build_server(settings: Settings) -> ContractServer:
    access = Access(settings.read_only)  # the one read-only decision; the server and the errors derive from it
    server = ContractServer(
        name="gmail-mcp",
        version=importlib.metadata.version("gmail-mcp"),
        instructions=INSTRUCTIONS,
        mapper=functools.partial(to_contract, access=access),
        read_only=access.read_only,
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
    mailbox = MailboxApi(client)
    directory = LabelDirectory(mailbox)
    composer = Composer(mailbox)
    delivery = Delivery(mailbox)
    labels.register(server, directory)
    messages.register(server, MailReader(mailbox, directory, settings.download_dir))
    compose.register(server, Sender(composer, delivery), Drafts(mailbox, composer, delivery))
    organize.register(server, Organizer(mailbox, directory))
    return server
