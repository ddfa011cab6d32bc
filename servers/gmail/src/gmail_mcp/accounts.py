"""Several Gmail accounts. Each has its own client, label cache and retry state, built on its first use;
a failure in one (a revoked token, rate limiting) never touches another.

A call names its account by name or address (`account`), else it gets the default: GMAIL_MCP_ACCOUNT,
else the only account, else `default`. Tools use an account through `reading` or `writing`: both
resolve the name (an unknown one is `UnknownAccount`) and tag an `AuthRequired` raised inside with the
account, so its re-auth command names it; `writing` also refuses an account whose token allows reading
only (`ReadOnlyAccount`), before anything is asked of Gmail.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gmail_mcp import warnings
from gmail_mcp.api.access import Access
from gmail_mcp.api.errors import AuthRequired, GmailFailure, ReadOnlyAccount, UnknownAccount
from gmail_mcp.api.token_folder import TokenFolder, valid_name
from gmail_mcp.api.tokens import TokenStore
from gmail_mcp.mail.errors import InvalidField
from gmail_mcp.results import AccountInfo, AccountList

if TYPE_CHECKING:  # an account's domain is built, and imported, on its first use (`OpenMail`)
    from gmail_mcp.api.mailbox import MailboxApi
    from gmail_mcp.drafts import Drafts
    from gmail_mcp.filters import FilterBook
    from gmail_mcp.labels import LabelDirectory
    from gmail_mcp.organizer import Organizer
    from gmail_mcp.reader import MailReader
    from gmail_mcp.sender import Sender


@dataclass(frozen=True)
class Mail:
    """One account's domain objects, sharing its client (`mailbox`) and its label cache (`labels`)."""

    name: str
    mailbox: MailboxApi
    labels: LabelDirectory
    reader: MailReader
    organizer: Organizer
    filters: FilterBook
    sender: Sender
    drafts: Drafts


OpenMail = Callable[[str, Path], Mail]
"""Builds an account's `Mail` from its name and token file (server.py assembles it)."""


class Accounts:
    def __init__(self, folder: TokenFolder, access: Access, open_mail: OpenMail) -> None:
        self.folder = folder
        self.access = access
        self._open_mail = open_mail
        self._lock = threading.Lock()
        self._mail: dict[str, Mail] = {}
        self._asked: dict[str, str] = {}  # addresses asked of Gmail for accounts with none recorded

    # -- using an account --------------------------------------------------------------------------
    @contextmanager
    def reading(self, account: str | None) -> Iterator[Mail]:
        """The account's domain objects, for a tool that only reads."""
        name = self.resolve(account)
        with _tagged(name):
            yield self._opened(name)

    @contextmanager
    def writing(self, account: str | None) -> Iterator[Mail]:
        """The account's domain objects, for a tool that may change the mailbox: a read-only account is refused."""
        name = self.resolve(account)
        with _tagged(name):
            mail = self._opened(name)
            if self.access.account_read_only(mail.mailbox.client.granted_scopes()):
                raise ReadOnlyAccount(name)
            yield mail

    def resolve(self, account: str | None) -> str:
        """The name of the account a call means: by name (any case) or recorded address; `UnknownAccount` if none."""
        if account is None:
            account = self.folder.chosen
            if account is None:
                return self.folder.implicit(self.folder.names())
        if not valid_name(account):
            raise InvalidField("account", "invalid", "account: a name or an address from list_accounts")
        names = self.folder.names()
        if account in names:
            return account
        found = next((n for n in names if n.casefold() == account.casefold()), None)
        if found is not None:
            return found
        if "@" in account:
            for ask in (False, True):  # the recorded addresses first; Gmail is asked only if none matches
                for name in names:
                    email = self._address(name, ask)
                    if email is not None and email.casefold() == account.casefold():
                        return name
        raise UnknownAccount(account, names)

    # -- list_accounts -----------------------------------------------------------------------------
    def listing(self) -> AccountList:
        """Every account with a token: its address (recorded, else asked of Gmail once) and whether it is read-only.

        An account whose address cannot be found (its token is broken, Gmail cannot be reached) is listed
        with `email: null` and named in a PARTIAL_RESULTS warning. No account at all is `AuthRequired`
        (`no_token`), like every other tool without a token: its command is what the user must run.
        """
        names = self.folder.names()
        if not names:
            chosen = self.folder.chosen if self.folder.chosen and valid_name(self.folder.chosen) else None
            raise AuthRequired("no_token", "no Gmail account is authorised yet", account=chosen)
        infos, failed = [], {}
        for name in names:
            email, read_only = None, self.access.read_only
            try:
                facts = TokenStore(self.folder.path_for(name)).facts()
                read_only = self.access.account_read_only(facts.scopes)
                email = facts.email or self._asked_address(name)
            except GmailFailure as failure:
                failed[name] = failure
            infos.append(AccountInfo(name=name, email=email, read_only=read_only))
        try:
            default = self.resolve(None)
        except (UnknownAccount, InvalidField):
            default = self.folder.chosen or ""
        result = AccountList(accounts=infos, default_account=default)
        if failed:
            notice = f"the address of {len(failed)} accounts could not be found; they are listed without it"
            result.warnings.append(warnings.partial_results(notice, failed=failed))
        return result

    # -- state per account -------------------------------------------------------------------------
    def _opened(self, name: str) -> Mail:
        with self._lock:
            mail = self._mail.get(name)
            if mail is None:
                mail = self._mail[name] = self._open_mail(name, self.folder.path_for(name))
            return mail

    def _address(self, name: str, ask: bool) -> str | None:
        """The account's recorded address; with `ask`, else the one Gmail gives (None when it cannot be found)."""
        try:
            recorded = TokenStore(self.folder.path_for(name)).facts().email
            return recorded if recorded is not None or not ask else self._asked_address(name)
        except GmailFailure:  # this account's trouble must not stop finding another
            return None

    def _asked_address(self, name: str) -> str | None:
        """The address Gmail gives for an account without a recorded one (users.getProfile, once per account)."""
        with self._lock:
            known = self._asked.get(name)
        if known is not None:
            return known
        with _tagged(name):
            profile = self._opened(name).mailbox.get_profile()
        email = profile.email_address
        if not email:
            return None
        with self._lock:
            self._asked[name] = email
        return email


@contextmanager
def _tagged(name: str) -> Iterator[None]:
    """Name the account in an `AuthRequired` raised inside, so its re-auth command is for this account."""
    try:
        yield
    except AuthRequired as exc:
        if exc.account is None:
            exc.account = name
        raise
