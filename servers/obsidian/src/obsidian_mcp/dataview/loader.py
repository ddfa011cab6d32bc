"""Pages from a folder of markdown notes, for tests and tools (the server builds pages from its
index instead). Hidden folders are skipped; frontmatter is YAML between `---` lines; tags come
from frontmatter `tags`/`tag` and from the body outside code; links are `[[wiki links]]` in the
body and in frontmatter strings, resolved with `PageList.resolver()`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import yaml  # type: ignore[import-untyped]

from obsidian_mcp.dataview.coerce import frontmatter_strings
from obsidian_mcp.dataview.extract import scan_body
from obsidian_mcp.dataview.page import Page, PageList
from obsidian_mcp.dataview.values import Link

_FRONTMATTER = re.compile(r"---[ \t]*\r?\n(.*?\r?\n)?---[ \t]*(?:\r?\n|$)", re.DOTALL)
_LINK = re.compile(r"\[\[([^\[\]]+?)\]\]")


def split_note(text: str) -> tuple[dict[str, object], str, int]:
    """(frontmatter, body, file line of the body's first line); invalid YAML counts as none."""
    match = _FRONTMATTER.match(text)
    if match is None:
        return {}, text, 1
    try:
        loaded = yaml.safe_load(match.group(1) or "")
    except yaml.YAMLError:
        loaded = None
    frontmatter = {str(k): v for k, v in loaded.items()} if isinstance(loaded, dict) else {}
    return frontmatter, text[match.end() :], text.count("\n", 0, match.end()) + 1


def _listed(value: object, separator: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [part for item in value for part in _listed(item, separator)]
    return [part.strip() for part in re.split(separator, str(value)) if part.strip()]


def page_from_text(path: str, text: str, *, ctime: datetime | None = None, mtime: datetime | None = None) -> Page:
    """A page with its outgoing link texts in `outlinks` (unresolved; `load_vault` resolves them)."""
    frontmatter, body, start = split_note(text)
    scan = scan_body(body)
    tag_values = [v for k, v in frontmatter.items() if k.lower() in ("tags", "tag")]
    tags = ["#" + t.lstrip("#") for t in _listed(tag_values, r"[,\s]+")] + list(scan.tags)
    aliases = _listed([v for k, v in frontmatter.items() if k.lower() in ("aliases", "alias")], r",")
    links = [m.group(1) for s in frontmatter_strings(frontmatter) for m in _LINK.finditer(s)] + list(scan.links)
    return Page(
        path=path,
        frontmatter=frontmatter,
        body=body,
        size=len(text.encode()),
        ctime=ctime,
        mtime=mtime,
        outlinks=tuple(links),
        tags=tuple(dict.fromkeys(tags)),
        aliases=tuple(aliases),
        body_start_line=start,
    )


def resolve_links(pages: Iterable[Page]) -> PageList:
    """Pages whose `outlinks` hold link texts -> pages with resolved outlinks and inlinks."""
    draft = PageList(pages)
    resolve = draft.resolver()
    outgoing: dict[str, tuple[str, ...]] = {}
    for page in draft:
        found = (resolve(Link.parse(inner, origin=page.path).path, page.path) for inner in page.outlinks)
        outgoing[page.path] = tuple(dict.fromkeys(t for t in found if t is not None))
    incoming: dict[str, list[str]] = {}
    for source, targets in outgoing.items():
        for target in targets:
            incoming.setdefault(target, []).append(source)
    return PageList(
        replace(page, outlinks=outgoing[page.path], inlinks=tuple(incoming.get(page.path, ()))) for page in draft
    )


def load_vault(root: Path) -> PageList:
    """Every `.md` note under `root` (hidden folders skipped), links resolved."""
    pages = []
    for file in sorted(root.rglob("*.md")):
        relative = file.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        stat = file.stat()
        pages.append(
            page_from_text(
                relative.as_posix(),
                file.read_text(encoding="utf-8"),
                ctime=datetime.fromtimestamp(stat.st_ctime),
                mtime=datetime.fromtimestamp(stat.st_mtime),
            )
        )
    return resolve_links(pages)
