"""gmail_mcp.mail.htmltext: readable text from untrusted HTML, with bounded output."""

from __future__ import annotations

import time

import pytest
from gmail_mcp.mail import htmltext
from gmail_mcp.mail.htmltext import html_to_text


def test_links_tables_and_hidden_content() -> None:
    text, truncated = html_to_text(
        "<p>Intro <a href='https://ex.com/a'>here</a> and <a href='https://ex.com/b'>https://ex.com/b</a></p>"
        "text before<table><tr><td>A1</td><td>B1</td></tr><tr><td>A2</td><td>B2</td></tr></table>"
        "<script>alert('x')</script><style>.x{}</style><img alt='Logo' src='cid:1'>"
    )
    assert not truncated
    assert "Intro [here](https://ex.com/a) and https://ex.com/b" in text  # a bare URL is not doubled
    assert "text before\nA1  B1\nA2  B2" in text
    assert "alert" not in text and ".x{}" not in text
    assert "[Logo]" in text


@pytest.mark.parametrize("markup", ["", "   ", "\x00", "<", "<<<>>>", "<?xml version='1.0' encoding='utf-8'?><p>x</p>"])
def test_odd_input(markup: str) -> None:
    text, _ = html_to_text(markup)
    assert isinstance(text, str)


@pytest.mark.parametrize(
    "bomb",
    [
        # every line of a table is padded to the table's width
        "<table><tr><td>" + "x" * 100_000 + "</td><td>b</td></tr>" + "<tr><td>a</td><td>b</td></tr>" * 3000,
        # indentation of deeply nested lists repeated on every line
        "<ul>" * 250 + "<li>a</li>" * 30_000,
        # inline padding in em
        '<div style="padding-left: 99999em; margin-top: 99999em">x</div>' * 2000,
    ],
)
def test_amplification_is_bounded(bomb: str) -> None:
    started = time.monotonic()
    text, _ = html_to_text(bomb)
    assert len(text) < 4 * len(bomb) + 1000
    assert time.monotonic() - started < 20


def test_flow_fallback_keeps_content() -> None:
    html = "<ul>" * 250 + "<li>item</li>" * 30_000
    text, _ = html_to_text(html)
    assert text.count("item") == 30_000


def test_deep_nesting_does_not_raise() -> None:
    text, _ = html_to_text("<div>" * 5000 + "deep" + "</div>" * 5000 + "<p>after</p>")
    assert isinstance(text, str)


def test_oversized_input_is_truncated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(htmltext, "HTML_MAX_INPUT_CHARS", 1000)
    text, truncated = html_to_text("<p>" + "word " * 1000 + "</p><p>END</p>")
    assert truncated and "END" not in text


def test_renderer_failure_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def __init__(self, *args: object) -> None:
            raise RecursionError

    import inscriptis.html_engine

    monkeypatch.setattr(inscriptis.html_engine, "Inscriptis", Broken)  # htmltext imports it on first use
    text, _ = html_to_text("<p>Hello <a href='https://ex.com'>link</a></p><table><tr><td>a</td><td>b</td></tr>")
    assert "Hello [link](https://ex.com)" in text
    assert "a | b" in text
