"""semantic.bpe, semantic.tokenizer and semantic.table: the packaged model read cheaply, exactly.

The compact BPE tables must give the `tokenizers` library's ids for every piece they accept, the
library must take over for large batches and for what the tables decline, and the table's rows
read from the file must be the file's. The embedder keeps both tokenizers (specs/spec.md, "Decision:
memory"): the property tests below draw random pieces — any Unicode, emoji, whitespace runs,
Markdown, long words, special tokens' text — and require the same ids from both.
"""

from __future__ import annotations

import importlib.util
import json
import random
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from obsidian_mcp.semantic import tokenizer as tokenizer_module
from obsidian_mcp.semantic.bpe import CompactBpe
from obsidian_mcp.semantic.table import TableFile
from obsidian_mcp.semantic.tokenizer import PieceTokenizer, prepared_library
from tokenizers import Tokenizer

WORDLLAMA = importlib.util.find_spec("wordllama")
assert WORDLLAMA is not None and WORDLLAMA.submodule_search_locations is not None
PACKAGE = Path(next(iter(WORDLLAMA.submodule_search_locations)))
TOKENIZER = PACKAGE / "tokenizers" / "l2_supercat_tokenizer_config.json"
WEIGHTS = PACKAGE / "weights" / "l2_supercat_256.safetensors"
REPO = Path(__file__).resolve().parents[3]
ODD = (
    "abcxyzÄöüßéñçøå日本語中文한국어🙂👍🏽\t\n\r\x00\x7f€™…—–“”‘’«»•·°±×÷αβγδλπσΩ∑√∞≈≠≤≥"
    "0123456789.,;:!?()[]{}<>/\\|@#$%^&*_-+=~`'\"▁"
)


@pytest.fixture(scope="module")
def library() -> Any:
    return prepared_library(Tokenizer.from_file(str(TOKENIZER)))


@pytest.fixture(scope="module")
def compact() -> CompactBpe:
    tables = CompactBpe.open(TOKENIZER)
    assert tables is not None
    return tables


def library_ids(library: Any, pieces: list[str]) -> list[tuple[int, ...]]:
    return [tuple(e.ids) for e in library.encode_batch(pieces, add_special_tokens=False)]


def pieces() -> list[str]:
    """The sample vault's and the evaluation set's words, and random Unicode (seeded)."""
    words: set[str] = set()
    for note in (REPO / "examples" / "vault").rglob("*.md"):
        words.update(note.read_text(encoding="utf-8").split(" "))
    evaluation = json.loads((Path(__file__).parent / "fixtures" / "search_eval.json").read_text(encoding="utf-8"))
    for item in evaluation["questions"] + evaluation["needles"]:
        words.update(item["query"].split(" "))
    rng = random.Random(7)
    words.update("".join(rng.choice(ODD) for _ in range(rng.randint(1, 14))) for _ in range(4000))
    return sorted(words)


def test_the_compact_tables_give_the_librarys_ids(compact: CompactBpe, library: Any) -> None:
    words = [word for word in pieces() if compact.encode(word) is not None]
    assert len(words) > 5000
    assert [compact.encode(word) for word in words] == library_ids(library, words)
    assert compact.encode("") == () == library_ids(library, [""])[0]


SPECIALS = ("<s>", "</s>", "<unk>")
MARKDOWN = (
    "#",
    "##",
    "**",
    "_",
    "`",
    "```",
    "[[",
    "]]",
    "|",
    "![[",
    "[",
    "](",
    ")",
    "- [ ]",
    "- [x]",
    ">",
    "---",
    "::",
    "^block",
    "#tag/sub",
    "📅",
    "✅",
    "⏫",
    "🔁",
    "https://example.com/a?b=c",
    "<br>",
    "&nbsp;",
    "$x^2$",
)
WORDS = ("refund", "the", "Obsidian", "naïve", "café", "日本語", "straße", "don't", "e-mail", "x86_64", "1,024.5")
# Lone surrogates (category Cs) are left out: the library cannot take them (no UTF-8 form), and
# a note read from disk as UTF-8 has none.
ANY_CHARACTER = st.characters(codec="utf-8")
PIECE = st.one_of(
    st.text(ANY_CHARACTER, max_size=24),  # anything: controls, combining marks, emoji, CJK, private use
    st.text(st.sampled_from(ODD), min_size=1, max_size=24),
    st.text(st.sampled_from(" \t\n\r\u00a0\u2003\u3000▁"), min_size=1, max_size=12),  # whitespace runs
    st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzé"), min_size=25, max_size=80),  # long words
    st.lists(st.sampled_from(MARKDOWN + WORDS + SPECIALS), min_size=1, max_size=6).map("".join),
    st.lists(
        st.one_of(st.sampled_from(MARKDOWN + WORDS + SPECIALS), st.text(ANY_CHARACTER, max_size=4)), max_size=8
    ).map(" ".join),  # whole texts: spaces become "▁" in both
)


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(PIECE, min_size=1, max_size=12))
def test_random_pieces_get_the_librarys_ids_from_the_compact_tables(
    compact: CompactBpe, library: Any, pieces: list[str]
) -> None:
    expected = library_ids(library, pieces)
    for piece, ids in zip(pieces, expected, strict=True):
        got = compact.encode(piece)
        if any(special in piece for special in SPECIALS):
            assert got is None, piece  # the library cuts the special token out first: left to it
        else:
            assert got == ids, piece


@settings(max_examples=50, deadline=None)
@given(pieces=st.lists(PIECE, max_size=30))
def test_random_batches_get_the_librarys_ids_from_the_piece_tokenizer(
    compact: CompactBpe, library: Any, pieces: list[str]
) -> None:
    together = PieceTokenizer(compact, lambda: library)
    assert together.encode(pieces) == library_ids(library, pieces)
    assert together.holds_library == any(special in piece for piece in pieces for special in SPECIALS)


def test_special_token_text_is_left_to_the_library(compact: CompactBpe, library: Any) -> None:
    for piece in ("<s>", "a</s>b", "x<unk>"):
        assert compact.encode(piece) is None
    together = PieceTokenizer(compact, lambda: Tokenizer.from_file(str(TOKENIZER)))
    mixed = ["refund", "a</s>b", "<s>", "café"]
    assert together.encode(mixed) == library_ids(library, mixed)
    assert together.holds_library  # loaded for the two it declined


def test_large_batches_go_through_the_library_and_release_drops_it(
    compact: CompactBpe, library: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[int] = []

    def load() -> Any:
        loads.append(1)
        return Tokenizer.from_file(str(TOKENIZER))

    monkeypatch.setattr(tokenizer_module, "LIBRARY_AT", 50)
    compact_calls: list[str] = []
    real_encode = compact.encode

    def counted(piece: str) -> tuple[int, ...] | None:
        compact_calls.append(piece)
        return real_encode(piece)

    monkeypatch.setattr(compact, "encode", counted)
    together = PieceTokenizer(compact, load)
    small, large = pieces()[:49], pieces()[:200]
    assert together.encode(small) == library_ids(library, small)
    assert loads == [] and not together.holds_library and len(compact_calls) == 49
    assert together.encode(large) == library_ids(library, large)
    assert loads == [1] and together.holds_library and len(compact_calls) == 49
    assert together.encode(small) == library_ids(library, small)  # while held, the library does all
    assert len(compact_calls) == 49
    together.release()
    assert not together.holds_library
    assert together.encode(small) == library_ids(library, small)  # the tables again, no load
    assert loads == [1] and len(compact_calls) == 98


def test_without_compact_tables_the_library_does_everything_and_stays(library: Any) -> None:
    alone = PieceTokenizer(None, lambda: pytest.fail("not loaded again"), library)
    assert alone.encode(["refund", "café"]) == library_ids(library, ["refund", "café"])
    alone.release()
    assert alone.holds_library


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c.update(normalizer={"type": "NFKC"}),
        lambda c: c.update(pre_tokenizer={"type": "Whitespace"}),
        lambda c: c["model"].update(byte_fallback=False),
        lambda c: c["model"].update(dropout=0.1),
        lambda c: c["model"].update(type="Unigram"),
        lambda c: c["added_tokens"].append({"id": 5, "content": "x", "special": False, "normalized": True}),
    ],
)
def test_another_kind_of_tokenizer_gets_no_compact_tables(tmp_path: Path, change: Any) -> None:
    config = json.loads(TOKENIZER.read_text(encoding="utf-8"))
    change(config)
    other = tmp_path / "tokenizer.json"
    other.write_text(json.dumps(config), encoding="utf-8")
    assert CompactBpe.open(other) is None


def test_an_unreadable_tokenizer_file_gets_no_compact_tables(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert CompactBpe.open(broken) is None
    assert CompactBpe.open(tmp_path / "missing.json") is None


def test_table_rows_read_from_the_file_are_the_files() -> None:
    from safetensors import safe_open

    table = TableFile.open(WEIGHTS, "embedding.weight", 256)
    assert table is not None and table.vocabulary == 32000
    with safe_open(str(WEIGHTS), framework="np") as handle:
        expected = handle.get_tensor("embedding.weight")
    ids = np.array([0, 1, 2, 3, 17, 18, 19, 31999], dtype=np.int64)  # runs and single rows
    assert np.array_equal(table.rows(ids), expected[ids])
    assert table.rows(np.zeros(0, dtype=np.int64)).shape == (0, 256)
    whole = table.whole()
    assert whole.shape == (32001, 256) and np.array_equal(whole[:-1], expected) and not whole[-1].any()


def safetensors_file(path: Path, header: dict[str, Any], data: bytes) -> Path:
    encoded = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(encoded)) + encoded + data)
    return path


@pytest.mark.parametrize(
    ("header", "data"),
    [
        ({"embedding.weight": {"dtype": "F32", "shape": [4, 2], "data_offsets": [0, 32]}}, bytes(32)),
        ({"embedding.weight": {"dtype": "F16", "shape": [4, 3], "data_offsets": [0, 24]}}, bytes(24)),
        ({"embedding.weight": {"dtype": "F16", "shape": [4, 2], "data_offsets": [0, 16]}}, bytes(8)),  # short
        ({"other": {"dtype": "F16", "shape": [4, 2], "data_offsets": [0, 16]}}, bytes(16)),
        ({"embedding.weight": {"dtype": "F16", "shape": [4, 2], "data_offsets": [0, 8]}}, bytes(16)),
    ],
)
def test_a_table_file_of_another_layout_is_refused(tmp_path: Path, header: dict[str, Any], data: bytes) -> None:
    assert TableFile.open(safetensors_file(tmp_path / "w.safetensors", header, data), "embedding.weight", 2) is None


def test_a_table_file_that_shrank_after_opening_fails_loudly(tmp_path: Path) -> None:
    header = {"embedding.weight": {"dtype": "F16", "shape": [4, 2], "data_offsets": [0, 16]}}
    path = safetensors_file(tmp_path / "w.safetensors", header, np.arange(8, dtype="<f2").tobytes())
    table = TableFile.open(path, "embedding.weight", 2)
    assert table is not None
    assert table.rows(np.array([1, 3], dtype=np.int64)).tolist() == [[2.0, 3.0], [6.0, 7.0]]
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(OSError):
        table.rows(np.array([3], dtype=np.int64))
    with pytest.raises(OSError):
        table.whole()
