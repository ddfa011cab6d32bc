"""semantic.matrix: int8 rows with a scale each score like the float32 vectors they stand for."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from obsidian_mcp.semantic import matrix as matrix_module
from obsidian_mcp.semantic.matrix import Buffers, NoteSpan, Quantized, quantize, row_scores, span_norms


def unit_rows(count: int, dim: int = 64, seed: int = 3) -> npt.NDArray[np.float32]:
    rows: npt.NDArray[np.float32] = np.random.default_rng(seed).standard_normal((count, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def test_quantized_rows_are_within_half_a_step_of_the_originals() -> None:
    rows = unit_rows(300)
    rows[7] = 0  # a zero row stays zero
    packed = quantize(rows)
    assert packed.codes.dtype == np.int8 and packed.scales.dtype == np.float32
    restored = packed.codes.astype(np.float32) * packed.scales[:, None]
    assert np.abs(restored - rows).max() <= packed.scales.max() / 2 + 1e-7
    assert not restored[7].any() and packed.scales[7] == 0
    assert np.abs(packed.codes).max() == 127


def test_scores_in_blocks_match_float_cosines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matrix_module, "BLOCK_ROWS", 100)  # several blocks and a partial last one
    rows = unit_rows(1050)
    query = rows[5]
    packed = quantize(rows)
    scores = row_scores(packed.codes, packed.scales, query)
    assert scores.shape == (1050,)
    assert np.abs(scores - rows @ query).max() < 0.01
    assert int(np.argmax(scores)) == 5
    assert row_scores(packed.codes[:0], packed.scales[:0], query).shape == (0,)


def test_span_norms_are_the_lengths_of_each_notes_summed_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matrix_module, "BLOCK_ROWS", 4)  # spans grouped across several blocks
    rows = unit_rows(20)
    packed = quantize(rows)
    restored = packed.codes.astype(np.float32) * packed.scales[:, None]
    spans = [(0, 3), (3, 3), (3, 4), (4, 12), (12, 20)]  # an empty note, a one-row note, a long one
    expected = [float(np.linalg.norm(restored[a:b].sum(axis=0))) for a, b in spans]
    assert span_norms(packed.codes, packed.scales, spans) == pytest.approx(expected, rel=1e-5)


def test_note_scores_cover_live_notes_only() -> None:
    rows = unit_rows(6)
    buffers = Buffers(8, 4, 64)
    packed = quantize(rows)

    def note(path: str, start: int, stop: int) -> NoteSpan:
        part = Quantized(packed.codes[start:stop], packed.scales[start:stop])
        norm = float(np.linalg.norm((part.codes.astype(np.float32) * part.scales[:, None]).sum(axis=0)))
        return buffers.append(path, part, list(range(stop - start)), norm, start)

    a, _, c = note("A.md", 0, 2), note("B.md", 2, 4), note("C.md", 4, 6)
    alive = np.array([True, True, False, False, True, True])  # B was replaced: its rows are dead
    snapshot = buffers.snapshot(6, alive, {"A.md": a, "C.md": c})
    assert snapshot.slots == 3 and snapshot.path_of(5) == "C.md"
    query = snapshot.note_vector(a)
    assert float(np.linalg.norm(query)) == pytest.approx(1.0, abs=1e-6)
    scores = snapshot.note_scores(query)
    assert scores[0] == pytest.approx(1.0, abs=1e-5)
    assert scores[1] == -np.inf  # B's slot: no live rows
    mean_c = rows[4:6].sum(axis=0)
    assert scores[2] == pytest.approx(float(query @ mean_c / np.linalg.norm(mean_c)), abs=0.01)
