"""Who an account has already written to: the recipients it can send to without asking the person.

Known are: every address in To, Cc or Bcc of the account's Sent mail (Gmail's own data, never a local
guess), the account's own send-as addresses, and `GMAIL_MCP_TRUSTED_RECIPIENTS` (addresses, and
`@domain` entries that trust that exact domain, not its subdomains).

Sent mail is learnt newest first, `messages.list` on `in:sent` (500 ids a page) and one batch of
`format=metadata` gets (To, Cc, Bcc) per 100 messages, kept in memory for the server's life and
refreshed incrementally: a later check lists only until it meets a message it has read before. The
first pass reads at most `LEARN_LIMIT` messages; an address not found in what was learnt is then
looked up once in all of Sent (`in:sent {to:"a" cc:"a" bcc:"a"}`), and the candidates are compared
header by header, so a correspondent from long ago is still known. An address Gmail's search merely
resembles (`to:` matches words too) never counts: only an exact canonical match does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from email.headerregistry import Address

from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.api.views import Message
from gmail_mcp.guard.addresses import canonical, canonical_domain
from gmail_mcp.mail.addresses import header_addresses
from gmail_mcp.sendas import SendAs

LEARN_LIMIT = 5000  # Sent messages read on the first pass (about 50 batch requests)
PAGE = 500
BATCH = 100
LOOKUP_CANDIDATES = 5
RECIPIENT_HEADERS = ("To", "Cc", "Bcc")


@dataclass(frozen=True, kw_only=True)
class Trusted:
    """`GMAIL_MCP_TRUSTED_RECIPIENTS`: addresses, and `@domain` for every address of exactly that domain."""

    addresses: frozenset[str] = frozenset()
    domains: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, value: str) -> Trusted:
        addresses, domains = set(), set()
        for entry in (e.strip() for e in value.split(",")):
            if entry.startswith("@") and len(entry) > 1:
                domains.add(canonical_domain(entry[1:]))
            elif "@" in entry.strip("@"):
                addresses.add(canonical(entry))
        return cls(addresses=frozenset(addresses), domains=frozenset(domains))

    def trusts(self, address: str) -> bool:
        return address in self.addresses or address.rpartition("@")[2] in self.domains


class KnownRecipients:
    """The recipients one account has sent to (see the module's docstring); thread-safe."""

    def __init__(self, mailbox: MailboxApi, send_as: SendAs, trusted: Trusted) -> None:
        self.mailbox = mailbox
        self.send_as = send_as
        self.trusted = trusted
        self._lock = threading.Lock()
        self._seen: set[str] = set()  # Sent message ids whose recipients are learnt
        self._known: set[str] = set()  # canonical addresses
        self._names: dict[str, str] = {}  # casefolded display name seen in Sent → its canonical address

    def known(self, addresses: Iterable[str]) -> set[str]:
        """Those of `addresses` (canonical forms) that are known to the account."""
        wanted = set(addresses)
        own = self._own()
        found = {a for a in wanted if a in own or self.trusted.trusts(a)}
        with self._lock:
            if wanted - found - self._known:
                self._refresh()
            found |= wanted & self._known
            for address in wanted - found:
                if self._sent_to(address):
                    self._known.add(address)
                    found.add(address)
        return found

    def directory(self) -> Directory:
        """Every address known so far (learnt, own, trusted) and the display names seen with them: what a new
        recipient is compared with, to show the person a lookalike or a borrowed name."""
        with self._lock:
            learnt, names = set(self._known), dict(self._names)
        return Directory(frozenset(learnt | self._own() | self.trusted.addresses), names)

    def _own(self) -> set[str]:
        """The account's send-as addresses, canonical."""
        return {canonical(a) for a in self.send_as.own()}

    def _refresh(self) -> None:
        """Learn the recipients of the Sent messages not read yet, newest first."""
        fresh: list[str] = []
        page_token: str | None = None
        while True:
            page = self.mailbox.list_messages("in:sent", PAGE, page_token, False)
            ids = page.ids
            new = [i for i in ids if i not in self._seen]
            fresh += new
            page_token = page.next_page_token or None
            if len(new) < len(ids) or page_token is None or len(self._seen) + len(fresh) >= LEARN_LIMIT:
                break
        for start in range(0, len(fresh), BATCH):
            self._learn(fresh[start : start + BATCH])

    def _learn(self, ids: list[str]) -> None:
        fetched = self.mailbox.get_messages_metadata(ids, RECIPIENT_HEADERS, with_label_list=False).messages
        for message_id, resource in fetched.succeeded.items():
            for address in _recipients(resource):
                found = canonical(address.addr_spec)
                self._known.add(found)
                if address.display_name:
                    self._names.setdefault(address.display_name.casefold(), found)
            self._seen.add(message_id)

    def _sent_to(self, address: str) -> bool:
        """Whether any Sent message, however old, has exactly `address` in To, Cc or Bcc."""
        if '"' in address or "\\" in address:
            return False
        quoted = f'"{address}"'
        query = f"in:sent {{to:{quoted} cc:{quoted} bcc:{quoted}}}"
        ids = list(self.mailbox.list_messages(query, LOOKUP_CANDIDATES, None, False).ids)
        if not ids:
            return False
        fetched = self.mailbox.get_messages_metadata(ids, RECIPIENT_HEADERS, with_label_list=False).messages
        return any(
            canonical(found.addr_spec) == address
            for resource in fetched.succeeded.values()
            for found in _recipients(resource)
        )


class AccountAddress:
    """The account's own address (users.getProfile, asked once): named in every question to the person."""

    def __init__(self, mailbox: MailboxApi) -> None:
        self.mailbox = mailbox
        self._address: str | None = None

    def __call__(self) -> str:
        if self._address is None:
            found = self.mailbox.get_profile().email_address
            self._address = found or "(address unknown)"
        return self._address


@dataclass(frozen=True)
class Directory:
    addresses: frozenset[str]  # canonical
    names: dict[str, str]  # casefolded display name → canonical address


def _recipients(resource: Message) -> list[Address]:
    headers = resource.headers
    return [address for name in ("to", "cc", "bcc") for address in header_addresses(headers.get(name, ""))]
