"""The packaged tokenizer's byte-pair encoding in compact tables, for queries and small batches.

WordLlama's tokenizer (Llama 2's: a BPE model with byte fallback, a normaliser that prepends "▁"
and turns spaces into "▁", no pre-tokenizer) loaded by the `tokenizers` library costs ~16 MB of
the server's memory: its vocabulary and merges as hash maps of strings, and its native code.
Searching needs the tokens of a dozen words at a time. `CompactBpe` reads the same file into
two sorted int32 arrays of merges (0.5 MB) and a table of the single-character tokens, and
applies the merges the way the library does: repeatedly the adjacent pair of lowest merge rank,
the leftmost first; a character outside the vocabulary becomes its UTF-8 bytes' tokens. It gives
the library's ids for every piece it accepts (tests compare both on the sample vault's words and
on random pieces), 2.5 to 6 times slower than the library (bench/tokenizer.py): the builder hands
large batches to the library. Why both stay: specs/spec.md, "Deliberate duplicates".

`CompactBpe.open` returns None when the file is not exactly this kind of tokenizer (another
model type, normaliser, pre-tokenizer, an option these tables do not implement): the library is
then used for everything. `encode` returns None for a piece that holds one of the special tokens'
text (`<s>`, ...), which the library cuts out before normalising: the caller asks the library.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SPACE = "▁"
_ID_BITS = 15  # token ids < 32,768: a merge key is (left << 15) | right, its value (rank << 15) | merged
_ID_MASK = (1 << _ID_BITS) - 1
_NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": _SPACE},
        {"type": "Replace", "pattern": {"String": " "}, "content": _SPACE},
    ],
}


@dataclass(frozen=True)
class _Tables:
    """What `CompactBpe` keeps of a tokenizer file, in a few objects (see `CompactBpe.open`)."""

    chars: str  # the single-character tokens
    char_ids: array[int]  # their ids
    byte_ids: array[int]  # the token of each byte value
    keys: array[int]  # merge keys, sorted
    values: array[int]  # merge values, in the same order
    specials: str  # the special tokens' texts, joined by NUL


class CompactBpe:
    """See the module docstring."""

    def __init__(self, chars: dict[str, int], byte_ids: list[int], keys: array[int], values: array[int]) -> None:
        self._chars = chars  # single-character tokens
        self._bytes = byte_ids  # the token of each byte value, for characters outside the vocabulary
        self._keys = keys  # sorted merge keys
        self._values = values
        self._specials: tuple[str, ...] = ()

    @classmethod
    def open(cls, path: Path) -> CompactBpe | None:
        """The tables of the tokenizer file at `path`, or None if it is not a tokenizer these
        tables reproduce exactly (or cannot be read).

        The file's ~100,000 strings are parsed, boiled down to arrays and one string, and freed
        before the few objects kept are made: made earlier, those would sit among the parsed
        strings and keep their memory from being handed back (~10 MB)."""
        try:
            tables = cls._tables(json.loads(path.read_bytes()))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None
        if tables is None:
            return None
        chars = dict(zip(tables.chars, tables.char_ids, strict=True))
        compact = cls(chars, list(tables.byte_ids), tables.keys, tables.values)
        compact._specials = tuple(tables.specials.split("\0")) if tables.specials else ()
        return compact

    @staticmethod
    def _tables(config: dict[str, Any]) -> _Tables | None:
        """The tables of a parsed tokenizer file, or None when the tokenizer is of another kind."""
        model = config["model"]
        plain = (
            model.get("type") == "BPE"
            and model.get("dropout") is None
            and not model.get("continuing_subword_prefix")
            and not model.get("end_of_word_suffix")
            and model.get("byte_fallback") is True
            and model.get("ignore_merges", False) is False
            and config.get("normalizer") == _NORMALIZER
            and config.get("pre_tokenizer") is None
        )
        vocab: dict[str, int] = model["vocab"]
        if not plain or not vocab or max(vocab.values()) > _ID_MASK:
            return None
        added = config.get("added_tokens") or []
        if any(token.get("normalized") or not token.get("special") or "\0" in token["content"] for token in added):
            return None
        byte_ids = array("i", [vocab.get(f"<0x{value:02X}>", -1) for value in range(256)])
        if min(byte_ids) < 0:
            return None
        # no tuple per merge or token: the interpreter keeps up to 2,000 freed tuples of each
        # size for reuse, scattered over the parsed strings' memory, which they would pin (~6 MB)
        merge_keys, merge_values = array("i"), array("i")
        for rank, merge in enumerate(model["merges"]):
            left, right = merge.split(" ") if isinstance(merge, str) else merge
            merge_keys.append((vocab[left] << _ID_BITS) | vocab[right])
            merge_values.append((rank << _ID_BITS) | vocab[left + right])
        order = sorted(range(len(merge_keys)), key=merge_keys.__getitem__)
        chars, char_ids = [], array("i")
        for token in vocab:
            if len(token) == 1:
                chars.append(token)
                char_ids.append(vocab[token])
        return _Tables(
            chars="".join(chars),
            char_ids=char_ids,
            byte_ids=byte_ids,
            keys=array("i", map(merge_keys.__getitem__, order)),
            values=array("i", map(merge_values.__getitem__, order)),
            specials="\0".join(str(token["content"]) for token in added),
        )

    def _merge(self, left: int, right: int) -> int:
        """(rank << 15) | merged id of the pair, or -1 when the pair never merges."""
        key = (left << _ID_BITS) | right
        at = bisect_left(self._keys, key)
        if at < len(self._keys) and self._keys[at] == key:
            return self._values[at]
        return -1

    def encode(self, piece: str) -> tuple[int, ...] | None:
        """The token ids of `piece` as the library gives them (no special tokens added); None
        when the piece holds a special token's text."""
        if not piece:
            return ()
        if any(special in piece for special in self._specials):
            return None
        symbols: list[int] = []
        for char in _SPACE + piece.replace(" ", _SPACE):
            number = self._chars.get(char)
            if number is not None:
                symbols.append(number)
            else:
                symbols.extend(self._bytes[value] for value in char.encode("utf-8", errors="surrogatepass"))
        while len(symbols) > 1:
            best, best_value = -1, -1
            for at in range(len(symbols) - 1):
                value = self._merge(symbols[at], symbols[at + 1])
                if value >= 0 and (best < 0 or value >> _ID_BITS < best_value >> _ID_BITS):
                    best, best_value = at, value
            if best < 0:
                break
            symbols[best : best + 2] = [best_value & _ID_MASK]
        return tuple(symbols)
