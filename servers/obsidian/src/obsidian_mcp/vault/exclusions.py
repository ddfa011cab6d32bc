"""Private folders: the gitignore-style patterns (`--exclude`, `OBSIDIAN_MCP_EXCLUDE`) that hide parts
of the vault from every tool.

Patterns are matched by `pathspec`'s `GitIgnoreSpec` against vault-relative paths in their on-disk
spelling (NFC-normalised, `/`-separated), exactly as a `.gitignore` at the vault's root would be:
`Journal/` is a folder anywhere, `/Journal/` only at the root, `*.private.md` any such note,
`!pattern` re-includes. As in git, a note inside an excluded folder cannot be re-included: every
folder on the way is checked first, so `Journal/` with `!Journal/ok.md` still hides `Journal/ok.md`.

What `Vault` does with a match is decided there (`paths.Vault.resolve`): reading answers as for a
missing note, writing is refused with the reason `excluded`. The fingerprint names the pattern set
in the index database, which is rebuilt from scratch when it changes, so a note excluded today
leaves no words behind from a run that still indexed it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec


class InvalidExclusion(ValueError):
    """A pattern that is not valid gitignore syntax; the message names it."""


class Exclusions:
    """An immutable set of gitignore-style patterns; `Exclusions()` excludes nothing."""

    def __init__(self, patterns: Sequence[str] = ()) -> None:
        cleaned = tuple(unicodedata.normalize("NFC", p.strip()) for p in patterns if p.strip())
        self.patterns = cleaned
        self._spec: pathspec.GitIgnoreSpec | None = None
        if not cleaned:  # the common case: pathspec (~20 ms) is not even imported
            self.fingerprint = ""
            return
        import pathspec

        try:
            self._spec = pathspec.GitIgnoreSpec.from_lines(cleaned)
        except (ValueError, re.error) as exc:  # pathspec's own errors; `re`'s for a bad [range]
            raise InvalidExclusion(f"not a valid gitignore-style pattern: {exc}") from None
        # Sorted: the same set given in another order needs no rebuild of the index.
        self.fingerprint = hashlib.sha256("\n".join(sorted(cleaned)).encode("utf-8")).hexdigest()[:16]

    def __bool__(self) -> bool:
        return self._spec is not None

    def excludes(self, rel: str, *, folder: bool = False) -> bool:
        """Whether the vault-relative `rel` (a note, or a folder when `folder`) is excluded, itself or
        through one of the folders it lies in. The root (`""`) never is."""
        spec = self._spec
        if spec is None or not rel:
            return False
        parts = unicodedata.normalize("NFC", rel).split("/")
        for depth in range(1, len(parts)):
            if spec.match_file("/".join(parts[:depth]) + "/"):
                return True
        whole = "/".join(parts)
        return spec.match_file(whole + "/" if folder else whole)
