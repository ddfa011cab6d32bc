"""Addresses as the send guard compares them: one canonical form per mailbox, and the lookalike test.

`canonical` is the comparison: the local part casefolded, the domain IDNA-encoded after UTS #46
mapping (so `Bob@BÜCHER.de`, `bob@bücher.de` and `bob@xn--bcher-kva.de` are one address). Nothing
else is folded: `b0b@x.org` and `bob@x.org` stay two addresses, as do a Cyrillic `а` and a Latin `a`.

`skeleton` only explains: a new address whose skeleton equals a known one's is shown to the person as
"looks like" that address (Unicode confusables mapped to Latin, accents dropped, digits read as the
letters they imitate). It never makes an address known.
"""

from __future__ import annotations

import unicodedata

import idna

# Digits (and digit pairs) used for letters in lookalike addresses, and letter pairs that read as one.
_DIGITS = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "|": "l"})
_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"), ("i", "l"))


def canonical(address: str) -> str:
    """`local@domain` in the form two addresses of the same mailbox share."""
    local, _, domain = address.strip().rpartition("@")
    return f"{unicodedata.normalize('NFC', local).casefold()}@{canonical_domain(domain)}"


def canonical_domain(domain: str) -> str:
    """The domain's ASCII (IDNA, UTS #46) form, lower case; a domain IDNA refuses is only casefolded."""
    domain = domain.strip().rstrip(".")
    try:
        return idna.encode(domain, uts46=True).decode("ascii").lower()
    except (idna.IDNAError, UnicodeError):
        return domain.casefold()


def skeleton(address: str) -> str:
    """What an address looks like to a reader: compare two skeletons to find a lookalike."""
    local, _, domain = canonical(address).rpartition("@")
    try:
        shown = f"{local}@{idna.decode(domain)}"
    except (idna.IDNAError, UnicodeError):
        shown = f"{local}@{domain}"
    latin = "".join(_latin(ch) for ch in shown)
    stripped = "".join(c for c in unicodedata.normalize("NFKD", latin) if not unicodedata.combining(c))
    folded = stripped.casefold().translate(_DIGITS)
    for pair, single in _PAIRS:
        folded = folded.replace(pair, single)
    return folded


def _latin(ch: str) -> str:
    if ch.isascii():
        return ch
    # Imported here: its tables cost ~0.1 s, paid only when an address holds a character beyond ASCII.
    from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

    found = confusables.is_confusable(ch, preferred_aliases=["latin"])
    if found:
        for glyph in found[0]["homoglyphs"]:
            if glyph["c"].isascii():
                return str(glyph["c"])
    return ch
