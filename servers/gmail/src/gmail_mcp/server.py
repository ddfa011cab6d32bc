"""Assembles the gmail-mcp server: the contract call path, each account's Gmail client and domain, and the
tool modules."""

from __future__ import annotations

import functools
import importlib.metadata
from pathlib import Path

from gmail_mcp.accounts import Accounts, Mail
from gmail_mcp.api.access import Access
from gmail_mcp.api.token_folder import TokenFolder
from gmail_mcp.config import Settings
from gmail_mcp.errors import to_contract
from gmail_mcp.guard.audit import AuditLog, Auditor
from gmail_mcp.runtime.server import ContractServer
from gmail_mcp.tools import prompts, resources

TOOL_LISTING = Path(__file__).with_name("tool_listing.json")  # `scripts/tool_listing.py` writes it

INSTRUCTIONS = (
    "Work with the user's Gmail mailboxes (list_accounts; every tool takes account). Errors are JSON objects "
    "{error, message, details}; auth_required means the user must run the command in details.reauth_command."
)


def build_server(settings: Settings) -> ContractServer:
    access = Access(settings.read_only)  # the one read-only decision; the server and the errors derive from it
    folder = TokenFolder(settings.token_file, settings.token_dir, settings.account)
    registry = Accounts(folder, access, functools.partial(open_mail, settings))
    server = ContractServer(
        name="gmail-mcp",
        version=importlib.metadata.version("gmail-mcp"),
        instructions=INSTRUCTIONS,
        mapper=functools.partial(to_contract, access=access),
        read_only=access.read_only,
        crash_tools=settings.crash_tools,
        audit=Auditor(AuditLog(settings.audit_log), registry.resolve),
    )
    server.tools_on_demand(functools.partial(register_tools, server, registry), TOOL_LISTING)
    resources.register(server, registry)  # messages and threads as resources
    prompts.register(server)
    return server


def register_tools(server: ContractServer, registry: Accounts) -> None:
    """Every tool, registered when a call first needs one (`ContractServer.tools_on_demand`): the tool
    modules are imported then, not at start-up."""
    from gmail_mcp.tools import accounts, compose, filters, labels, messages, organize

    accounts.register(server, registry)
    labels.register(server, registry)
    messages.register(server, registry)
    compose.register(server, registry)
    organize.register(server, registry)
    filters.register(server, registry)


def open_mail(settings: Settings, name: str, token_file: Path) -> Mail:
    """One account's domain objects around its own client (credentials, connections, retries) and label cache.
    Called on the account's first use: the Gmail client and the domain are imported then, not at start-up."""
    from gmail_mcp.api.client import ClientSettings, GmailClient
    from gmail_mcp.api.mailbox import MailboxApi
    from gmail_mcp.delivery import Delivery
    from gmail_mcp.drafts import Drafts
    from gmail_mcp.filters import FilterBook
    from gmail_mcp.guard.gate import Gate
    from gmail_mcp.guard.known import AccountAddress, KnownRecipients, Trusted
    from gmail_mcp.labels import LabelDirectory
    from gmail_mcp.organizer import Organizer
    from gmail_mcp.outgoing import Composer
    from gmail_mcp.reader import MailReader
    from gmail_mcp.sender import Sender

    client = GmailClient(
        ClientSettings(
            token_file=token_file,
            api_endpoint=settings.api_endpoint,
            timeout_seconds=settings.timeout_seconds,
            backoff_base_seconds=settings.backoff_base_seconds,
        )
    )
    mailbox = MailboxApi(client)
    directory = LabelDirectory(mailbox)
    composer = Composer(mailbox)
    delivery = Delivery(mailbox)
    known = KnownRecipients(mailbox, composer.send_as, Trusted.parse(settings.trusted_recipients))
    gate = Gate(settings.confirm, known, AccountAddress(mailbox))
    return Mail(
        name=name,
        mailbox=mailbox,
        labels=directory,
        reader=MailReader(mailbox, directory, settings.download_dir),
        organizer=Organizer(mailbox, directory, gate),
        filters=FilterBook(mailbox, directory, gate),
        sender=Sender(composer, delivery, gate),
        drafts=Drafts(mailbox, composer, delivery, gate),
    )
