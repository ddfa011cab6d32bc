"""HTML → readable text for untrusted e-mail HTML, with bounded time and memory.

inscriptis renders links as `[text](url)`, lays tables out in columns and drops scripts,
styles and `<head>`. Its layout can amplify small input enormously (every line of a table
is padded to the table's width; `padding-left: 99999em` in a style attribute), so the
parse tree is first sanitised (only `display` / `white-space` survive in `style`) and the
rendered size is estimated from above; over budget, or on any failure, a linear
flow-text renderer is used instead. Beyond depth ~255 libxml2 drops nested content.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

# lxml and inscriptis are imported on the first HTML body, not at start-up (~70 ms a server start paid
# whether or not any HTML was read).

HTML_MAX_INPUT_CHARS = 2_000_000
RENDER_BUDGET_CHARS = 4_000_000

_BLOCK_TAGS = frozenset(
    (  # noqa: SIM905 - a word list reads better than 45 lines of quoted strings
        "address article aside blockquote body center dd details div dl dt fieldset figcaption figure footer "
        "form h1 h2 h3 h4 h5 h6 header hgroup hr html li listing main nav ol p plaintext pre section summary "
        "table tbody td tfoot th thead tr ul xmp"
    ).split()
)
_CELL_TAGS = frozenset({"td", "th"})
_HIDDEN_TAGS = frozenset({"head", "script", "style", "title", "template", "meta", "link"})
_KEPT_STYLES = frozenset({"display", "white-space"})
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_LINK_SELF = re.compile(r"\[([^\[\]\s]{1,2048})\]\(\1\)")
_BLANK_LINES = re.compile(r"\n{3,}")
_SPACES = re.compile(r"[ \t\f\v\r]+")
_TAG = re.compile(r"<[^<>]*>")


@functools.cache
def _css() -> dict[str, Any]:
    """Firefox-like defaults, plus: a table starts on a line of its own."""
    from inscriptis.css_profiles import CSS_PROFILES
    from inscriptis.html_properties import Display
    from inscriptis.model.html_element import HtmlElement

    return {**CSS_PROFILES["strict"], "table": HtmlElement(display=Display.block)}


def html_to_text(markup: str) -> tuple[str, bool]:
    """Readable text of an HTML document; returns (text, truncated_input). Never raises."""
    truncated = len(markup) > HTML_MAX_INPUT_CHARS
    markup = _XML_DECLARATION.sub("", markup[:HTML_MAX_INPUT_CHARS].replace("\x00", ""), count=1)
    if not markup.strip():
        return "", truncated
    import lxml.html  # type: ignore[import-untyped]
    from inscriptis.html_engine import Inscriptis
    from inscriptis.model.config import ParserConfig

    try:
        root = lxml.html.document_fromstring(markup)
    except Exception:
        return _tidy(_strip_tags(markup)), truncated
    try:
        if _sanitise_and_estimate(root) <= RENDER_BUDGET_CHARS:
            _wrap_tables(root)
            config = ParserConfig(css=_css(), display_links=True, display_images=True)
            text = Inscriptis(root, config).get_text()
        else:
            text = _flow_text(root)
    except Exception:  # RecursionError and whatever inscriptis trips over
        try:
            text = _flow_text(root)
        except Exception:
            text = _strip_tags(markup)
    return _tidy(text), truncated


def _wrap_tables(root: Any) -> None:
    """Put every table in a <div>: inscriptis otherwise runs a table's first row into preceding text."""
    for table in list(root.iter("table")):
        parent = table.getparent()
        if parent is None or (parent.tag == "div" and len(parent) == 1 and not (parent.text or "").strip()):
            continue
        div = root.makeelement("div")
        div.tail, table.tail = table.tail, None
        table.addprevious(div)
        div.append(table)


def _tidy(text: str) -> str:
    lines = (line.rstrip() for line in text.replace("\r", "").split("\n"))
    text = _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip("\n")
    return _LINK_SELF.sub(r"\1", text)


def _strip_tags(markup: str) -> str:
    """Last resort: drop anything tag-like (linear: a tag never spans another '<')."""
    return html.unescape(_TAG.sub(" ", markup))


@dataclass
class _Frame:
    """Running upper bounds of an element's rendering while its children are visited."""

    el: Any
    tag: str
    children: Iterator[Any]
    indent: int
    inline_width: int = 0
    block_width: int = 0
    lines: int = 0
    cells: list[int] = field(default_factory=list)  # <tr>: the widths of its cells
    cell_lines: int = 0
    rows: list[tuple[int, list[int]]] = field(default_factory=list)  # rows bound for the nearest table


def _sanitise_and_estimate(root: Any) -> int:
    """Strip layout styles from the tree and bound the size of inscriptis' output from above."""
    total = 0
    max_indent = 0
    stack = [_open(root, 0)]
    result: tuple[int, int, bool, list[tuple[int, list[int]]]] = (0, 0, False, [])
    while stack:
        frame = stack[-1]
        child = next(frame.children, None)
        if child is not None:
            if isinstance(child.tag, str):
                stack.append(_open(child, frame.indent))
                max_indent = max(max_indent, stack[-1].indent)
            else:  # comment / processing instruction: only its tail is rendered
                tail = child.tail or ""
                frame.inline_width += len(tail)
                frame.lines += tail.count("\n")
                total += len(tail)
            continue
        stack.pop()
        lines, width, rows = _close(frame)
        if frame.tag == "table":
            total += lines * width
            rows = []
        tail = frame.el.tail or ""
        total += len(frame.el.text or "") + len(tail)
        if not stack:
            result = (lines, width, True, rows)
            break
        parent = stack[-1]
        parent.rows.extend(rows)
        if frame.tag == "tr":
            parent.rows.append((lines, frame.cells))
        elif frame.tag in ("td", "th"):
            parent.cells.append(width)
            parent.cell_lines = max(parent.cell_lines, lines)
        if frame.tag in _BLOCK_TAGS:
            parent.block_width = max(parent.block_width, width)
        else:
            parent.inline_width += width
        parent.inline_width += len(tail)
        parent.lines += lines + tail.count("\n")
    root_lines = result[0]
    return total + root_lines * 4 * max_indent


def _open(el: Any, indent: int) -> _Frame:
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    style = el.get("style")
    if style is not None:
        kept = [d for d in style.split(";") if d.split(":", 1)[0].strip().lower() in _KEPT_STYLES]
        el.set("style", ";".join(kept))
    text = el.text or ""
    frame = _Frame(el, tag, iter(el), indent + (1 if tag in ("ul", "ol", "dl") else 0))
    frame.inline_width = len(text) + len(el.get("href") or "") + len(el.get("alt") or el.get("title") or "") + 4
    frame.lines = text.count("\n") + (1 if tag == "br" else 0)
    return frame


def _close(frame: _Frame) -> tuple[int, int, list[tuple[int, list[int]]]]:
    """(lines, width, rows still looking for their table) of a finished element."""
    if frame.tag == "tr":
        return max(frame.cell_lines, 1), sum(frame.cells) + 2 * len(frame.cells), []
    if frame.tag == "table":
        columns: list[int] = []
        for _, widths in frame.rows:
            for i, w in enumerate(widths):
                if i < len(columns):
                    columns[i] = max(columns[i], w)
                else:
                    columns.append(w)
        lines = sum(row_lines for row_lines, _ in frame.rows) + frame.lines + 2
        width = max(sum(columns) + 2 * len(columns), frame.inline_width, frame.block_width)
        return lines, width, []
    extra = 2 if frame.tag in _BLOCK_TAGS else 0
    width = max(frame.inline_width, frame.block_width) + 4 * (frame.indent > 0)
    return frame.lines + extra, width, frame.rows


def _flow_text(root: Any) -> str:
    """Linear fallback: text in document order, blocks on new lines, cells separated by ` | `."""
    import lxml.etree  # type: ignore[import-untyped]  # a dependency of inscriptis

    out: list[str] = []
    walker = lxml.etree.iterwalk(root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if event == "start":
            if tag in _HIDDEN_TAGS or "display:none" in (el.get("style") or "").replace(" ", "").lower():
                walker.skip_subtree()  # its "end" event still comes, and writes the tail
                continue
            if (tag in _BLOCK_TAGS and tag not in _CELL_TAGS) or tag == "br":
                out.append("\n")
            if tag == "li":
                out.append("* ")
            elif tag in ("td", "th"):
                out.append(" | ")
            elif tag == "a" and el.get("href"):
                out.append("[")
            elif tag == "img" and (el.get("alt") or el.get("title")):
                out.append(f"[{el.get('alt') or el.get('title')}]")
            if tag:
                out.append(_SPACES.sub(" ", el.text or "") if tag not in ("pre", "xmp") else (el.text or ""))
        else:
            if tag == "a" and el.get("href"):
                out.append(f"]({el.get('href')})")
            if tag in _BLOCK_TAGS and tag not in _CELL_TAGS:
                out.append("\n")
            out.append(_SPACES.sub(" ", el.tail or ""))
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(out).split("\n"))
    return "\n".join(lines)
