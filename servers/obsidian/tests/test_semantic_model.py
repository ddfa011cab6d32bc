"""semantic.model: the packaged WordLlama model loads offline, lazily, once; pooling is exact."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from obsidian_mcp.semantic import model as model_module
from obsidian_mcp.semantic.model import HashingEmbedder, WordLlamaEmbedder, _import_wordllama

WORDLLAMA = importlib.util.find_spec("wordllama")
assert WORDLLAMA is not None and WORDLLAMA.submodule_search_locations is not None
PACKAGE = Path(next(iter(WORDLLAMA.submodule_search_locations)))
TEXTS = [
    "How do I get my money back after buying the app?",
    "Refunds: any purchase can be refunded within 14 days.",
    "Winter checklist for both bikes: studded tyres, oil the chain.",
    "",
    "tabs\tand new lines\nbetween words; ünïcödé café and emoji 🙂 (brackets) [[links]]",
    "word " * 500,
]


@pytest.fixture(scope="module")
def embedder() -> WordLlamaEmbedder:
    model = WordLlamaEmbedder()
    model.load()
    return model


def test_loading_and_embedding_open_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model ships in the wheel: a fresh load and embed must not touch the network."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network access attempted during model load")

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    model = WordLlamaEmbedder()
    assert not model.loaded
    vectors = model.embed(["refund my purchase"])
    assert model.loaded and vectors.shape == (1, 256)
    assert attempts == []


def test_the_fallback_through_wordllama_load_is_offline_and_equal(
    monkeypatch: pytest.MonkeyPatch, embedder: WordLlamaEmbedder
) -> None:
    """If a future wheel moved the files, `WordLlama.load` on the package folder takes over."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("network access attempted during model load")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr("obsidian_mcp.semantic.model._packaged_files", lambda config, dim: None)
    fallback = WordLlamaEmbedder()
    assert np.allclose(fallback.embed(TEXTS), embedder.embed(TEXTS), atol=1e-6)


def test_importing_the_package_imports_no_model_library() -> None:
    code = (
        "import sys, obsidian_mcp.semantic, obsidian_mcp.index.vector_store, obsidian_mcp.semantic.builder\n"
        "heavy = [m for m in ('numpy', 'wordllama', 'tokenizers', 'safetensors', 'requests') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.strip() == ""


def test_vectors_equal_wordllamas_own_mean_pooling(embedder: WordLlamaEmbedder) -> None:
    wordllama = _import_wordllama()
    reference = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    ours = embedder.embed(TEXTS)
    for text, vector in zip(TEXTS, ours, strict=True):
        if not text:
            assert not vector.any()
            continue
        if len(text.split(" ")) > 400:  # we cap texts at 400 words; compare with the same cap
            text = " ".join(text.split(" ")[:400])
        expected = reference.embed([text], norm=True)[0]
        assert float(vector @ expected) == pytest.approx(1.0, abs=1e-5), text
    assert np.linalg.norm(ours[[0, 1, 2, 4, 5]], axis=1) == pytest.approx(1.0, abs=1e-5)
    # runs of spaces (and a literal "▁") tokenise slightly differently when split: nearly equal
    odd = "double  spaces and   more ▁ here"
    assert float(embedder.embed([odd])[0] @ reference.embed([odd], norm=True)[0]) > 0.98


def test_results_do_not_depend_on_the_batch(embedder: WordLlamaEmbedder) -> None:
    together = embedder.embed(TEXTS)
    alone = np.vstack([embedder.embed([text]) for text in TEXTS])
    assert np.allclose(together, alone, atol=1e-6)
    embedder.clear_cache()
    assert np.allclose(embedder.embed(TEXTS), together, atol=1e-6)


def test_paraphrases_are_closer_than_unrelated_text(embedder: WordLlamaEmbedder) -> None:
    question, refund, bikes = embedder.embed(TEXTS[:3])
    assert float(question @ refund) > float(question @ bikes)


def test_concurrent_first_use_loads_once(monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[int] = []
    real = model_module._packaged_files

    def counting(config: str, dim: int) -> Any:
        loads.append(1)
        return real(config, dim)

    monkeypatch.setattr(model_module, "_packaged_files", counting)
    model = WordLlamaEmbedder()
    start = threading.Barrier(4)
    results: list[Any] = []

    def use() -> None:
        start.wait()
        results.append(model.embed(["sync conflict banner"]))

    threads = [threading.Thread(target=use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == [1]
    assert len(results) == 4 and all(np.array_equal(r, results[0]) for r in results)


def test_loading_leaves_logging_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    WordLlamaEmbedder().load()
    monkeypatch.setattr("obsidian_mcp.semantic.model._packaged_files", lambda config, dim: None)
    for name in [m for m in sys.modules if m == "wordllama" or m.startswith("wordllama.")]:
        monkeypatch.delitem(sys.modules, name)  # a first import runs logging.basicConfig
    WordLlamaEmbedder().load()
    assert root.handlers == handlers and root.level == level


def test_model_id_names_the_model_and_pooling() -> None:
    model_id = WordLlamaEmbedder().model_id
    assert model_id.startswith("wordllama-") and "l2_supercat-256" in model_id


def test_the_hashing_embedder_is_deterministic_and_normalised() -> None:
    model = HashingEmbedder(dim=32)
    first, second = model.embed(["Shed roof", "shed ROOF"]), model.embed(["shed roof", ""])
    assert np.array_equal(first[0], first[1]) and np.array_equal(first[0], second[0])
    assert float(np.linalg.norm(first[0])) == pytest.approx(1.0) and not second[1].any()


def test_queries_read_rows_and_a_build_holds_the_table_until_cleared() -> None:
    """Few distinct tokens: their rows are read from the file; many: the whole table is read
    once and kept until `clear_cache` (the builder's end). The vectors are the same either way."""
    model = WordLlamaEmbedder()
    query = ["How do I get my money back after buying the app?"]
    alone = model.embed(query)
    assert model.loaded and not model.holds_table
    config = json.loads((PACKAGE / "tokenizers" / "l2_supercat_tokenizer_config.json").read_text(encoding="utf-8"))
    words = [token[1:] for token in config["model"]["vocab"] if token.startswith("▁") and token[1:].isalpha()]
    assert len(words) > model_module.WHOLE_TABLE_AT
    together = model.embed(query + words[: model_module.WHOLE_TABLE_AT + 100])
    assert model.holds_table
    assert np.allclose(together[0], alone[0], atol=1e-6)
    model.clear_cache()
    assert not model.holds_table
    assert np.allclose(model.embed(query), alone, atol=1e-6)
    assert np.allclose(model.embed(query * model_module.WHOLE_TABLE_TEXTS)[0], alone[0], atol=1e-6)
    assert model.holds_table  # a build's batch of texts reads it too, however few its tokens
    assert model.clear_cache() and not model.clear_cache()  # said it let go of it, once
