"""Recipient arguments → validated `email.headerregistry.Address` objects.

Deliberately stricter than RFC 5322: `Name <local@domain>` or `local@domain`, dot-atom local
part (ASCII), a dotted domain (non-ASCII domains are IDNA-encoded), no comments, no groups,
no control characters anywhere: nothing a caller passes can smuggle a header line in.

`header_addresses` reads the address headers of a message Gmail gave us (a reply's original, a
draft): tolerant of groups and RFC 2047 names, but every address it keeps passes the same check.
"""

from __future__ import annotations

import email.policy
import re
from email.headerregistry import Address

from .errors import InvalidField

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LOCAL = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})+")
# C0/C1 controls (CR, LF, NUL, ...), DEL and the Unicode line separators.
_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
MAX_FIELD_CHARS = 100_000
MAX_NAME_CHARS = 256


def _split(value: str) -> list[str]:
    """Split on `,` / `;` outside quotes and angle brackets."""
    entries: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    angle = 0
    for ch in value:
        if escaped:
            escaped = False
        elif quoted:
            escaped = ch == "\\"
            quoted = ch != '"'
        elif ch == '"':
            quoted = True
        elif ch == "<":
            angle += 1
        elif ch == ">":
            angle -= 1
        elif ch in ",;" and angle == 0:
            entries.append("".join(current))
            current = []
            continue
        current.append(ch)
    entries.append("".join(current))
    return entries


def _unquote(inner: str) -> str | None:
    """The content of a quoted-string (without its quotes); None if a quote is unescaped."""
    out: list[str] = []
    escaped = False
    for ch in inner:
        if escaped:
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            return None
        else:
            out.append(ch)
    return None if escaped else "".join(out)


def _display_name(name: str) -> str | None:
    """The display name before `<addr>`, unquoted; None when it is not acceptable."""
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        unquoted = _unquote(name[1:-1])
        if unquoted is None:
            return None
        name = unquoted
    elif any(ch in name for ch in '"<>'):
        return None
    return name.strip() if len(name) <= MAX_NAME_CHARS else None


def addr_spec(value: str) -> str | None:
    """`local@domain` normalised (IDNA domain), or None when it is not a plain deliverable address."""
    local, at, domain = value.strip().rpartition("@")
    if not at or "@" in local or len(local) > 64 or not _LOCAL.fullmatch(local):
        return None
    try:
        domain = domain.encode("idna").decode("ascii") if not domain.isascii() else domain
    except UnicodeError:
        return None
    if not _DOMAIN.fullmatch(domain) or len(local) + 1 + len(domain) > 254:
        return None
    return f"{local}@{domain}"


def _entry(entry: str) -> Address | None:
    entry = entry.strip()
    name = ""
    spec = entry
    if entry.endswith(">"):
        start = entry.rfind("<")
        if start < 0:
            return None
        parsed_name = _display_name(entry[:start].strip())
        if parsed_name is None:
            return None
        name, spec = parsed_name, entry[start + 1 : -1]
    normalised = addr_spec(spec)
    if normalised is None:
        return None
    try:
        return Address(display_name=name, addr_spec=normalised)
    except (ValueError, TypeError, IndexError):  # email.errors.HeaderDefect is a ValueError
        return None


def _invalid(field: str, entry: str) -> InvalidField:
    shown = repr(entry)
    shown = shown if len(shown) <= 100 else shown[:99] + "…"
    return InvalidField(field, "invalid_address", f"{field}: invalid e-mail address {shown}")


def parse_address_list(value: str | list[str] | None, field: str) -> list[Address]:
    """Validated addresses from a comma-separated string or a list of them (duplicates dropped)."""
    if value is None:
        return []
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        items = list(value)
    else:
        raise InvalidField(field, "invalid_address", f"{field}: expected a string or a list of strings")
    found: dict[str, Address] = {}
    for item in items:
        if len(item) > MAX_FIELD_CHARS:
            raise InvalidField(field, "too_long", f"{field}: longer than {MAX_FIELD_CHARS} characters")
        if _FORBIDDEN.search(item):
            raise _invalid(field, item)
        for entry in _split(item):
            if not entry.strip():
                continue
            address = _entry(entry)
            if address is None:
                raise _invalid(field, entry.strip())
            found.setdefault(address.addr_spec.lower(), address)
    return list(found.values())


def parse_addresses(value: str | list[str] | None, field: str) -> list[str]:
    """Validated, normalised `Name <a@b.c>` / `a@b.c` strings; bad → InvalidField(field, "invalid_address")."""
    return [str(address) for address in parse_address_list(value, field)]


MAX_HEADER_ADDRESSES = 500


def header_addresses(value: str) -> list[Address]:
    """The deliverable addresses of an address header as read from a message (To, Cc, Reply-To, ...).

    A value the strict parser accepts keeps its display names. Anything else goes through the
    `email` package's header parser: groups are flattened (`Team: a@x.org, b@x.org;` → both,
    `undisclosed-recipients:;` → none), an entry whose address fails `addr_spec` is left out, and
    when the header has defects (e.g. a decoded `Doe, John <jd@x.org>` whose comma splits the name)
    only the bare addresses are kept, never a wrong name. Duplicates (any case) once. Never raises.
    """
    if not isinstance(value, str) or not value.strip():
        return []
    try:
        return parse_address_list(value, "header")[:MAX_HEADER_ADDRESSES]
    except InvalidField:
        pass
    try:
        header = email.policy.default.header_factory("to", value[:MAX_FIELD_CHARS])
        parsed, named = header.addresses, not header.defects
    except Exception:  # the header parser on hostile input: nothing usable
        return []
    found: dict[str, Address] = {}
    for entry in parsed[:MAX_HEADER_ADDRESSES]:
        spec = addr_spec(entry.addr_spec or "")
        if spec is None:
            continue
        name = _FORBIDDEN.sub(" ", entry.display_name or "").strip()[:MAX_NAME_CHARS] if named else ""
        try:
            address = Address(display_name=name, addr_spec=spec)
        except (ValueError, TypeError, IndexError):
            continue
        found.setdefault(spec.lower(), address)
    return list(found.values())
