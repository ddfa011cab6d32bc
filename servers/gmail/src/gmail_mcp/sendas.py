"""The account's send-as addresses (`users.settings.sendAs`): which From it may use, with which signature,
and which addresses are its own (a reply-all leaves them out).

Gmail does not refuse a message whose From is not a send-as address: it sends it from the primary
address instead. So `from_address` is checked here first, and refused as `NotSendAs`. The list is
read once per client and kept for a few minutes; an address not in it is looked up once more before
being refused (the user may just have added the alias).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.headerregistry import Address

from gmail_mcp.api import views
from gmail_mcp.api.mailbox import MailboxApi
from gmail_mcp.mail.addresses import parse_address_list
from gmail_mcp.mail.compose import Signature
from gmail_mcp.mail.errors import InvalidField, NotSendAs

CACHE_SECONDS = 300.0


@dataclass(frozen=True, kw_only=True)
class SendAsAddress:
    email: str
    display_name: str
    signature_html: str  # "" when none is configured
    is_default: bool
    usable: bool  # the primary address, or an alias whose verification was accepted

    @classmethod
    def of(cls, found: views.SendAs) -> SendAsAddress:
        return cls(
            email=found.email,
            display_name=found.display_name or "",
            signature_html=found.signature or "",
            is_default=found.is_default,
            usable=found.is_primary or (found.verification_status or "") in ("", "accepted"),
        )

    def from_header(self) -> str:
        """The From header value: the address with its Gmail display name."""
        return str(Address(display_name=self.display_name, addr_spec=self.email))

    def signature(self) -> Signature | None:
        return Signature.from_html(self.signature_html)


class SendAs:
    """The send-as addresses of one account (one per client), read once and cached."""

    def __init__(self, mailbox: MailboxApi, clock: Callable[[], float] = time.monotonic) -> None:
        self.mailbox = mailbox
        self._clock = clock
        self._lock = threading.Lock()
        self._cached: tuple[float, list[SendAsAddress]] | None = None

    def addresses(self, refresh: bool = False) -> list[SendAsAddress]:
        with self._lock:
            cached = self._cached
        if cached is not None and not refresh and self._clock() - cached[0] < CACHE_SECONDS:
            return cached[1]
        found = [SendAsAddress.of(r) for r in self.mailbox.list_send_as()]
        with self._lock:
            self._cached = (self._clock(), found)
        return found

    def default(self) -> SendAsAddress | None:
        """The address Gmail sends from when no From is given (the default one, else the first)."""
        found = self.addresses()
        return next((a for a in found if a.is_default), found[0] if found else None)

    def resolve(self, from_address: str) -> SendAsAddress:
        """The send-as address `from_address` names (`addr` or `Name <addr>`, any case); NotSendAs otherwise."""
        parsed = parse_address_list(from_address, "from_address")
        if len(parsed) != 1:
            raise InvalidField("from_address", "invalid_address", "from_address: exactly one address expected")
        wanted = parsed[0].addr_spec.casefold()
        for refresh in (False, True):
            found = self.addresses(refresh)
            match = next((a for a in found if a.email.casefold() == wanted and a.usable), None)
            if match is not None:
                return match
        raise NotSendAs(parsed[0].addr_spec, [a.email for a in found if a.usable])

    def own(self) -> frozenset[str]:
        """Every address of the account, casefolded (aliases still pending verification included)."""
        return frozenset(a.email.casefold() for a in self.addresses())
