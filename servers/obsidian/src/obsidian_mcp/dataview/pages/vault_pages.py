"""The indexed notes as Dataview pages, kept in step with the index, for `query_notes`.

`VaultPages` holds one `dataview.Page` per indexed note (frontmatter, inline fields and list
items, size, times, tags, aliases, outlinks and inlinks resolved like `get_backlinks` resolves
them; no note text) and answers the engine's FROM primitives from its own indexes: tag → notes,
sorted paths (folders), inlinks.

Built lazily, on the first query, from the index's tables alone: tags and links (what `list_tags`
and `get_backlinks` see), frontmatter, fields and list items (`index.metadata`); no note is read.
From then on it is a `sync.SyncListener`: each sync tells it which notes were read (with the
record extracted from them) or dropped, and only those pages are rebuilt, never the whole vault.
Link resolution is incremental too: adding or removing a note re-resolves only the links that
could name it (same base name), and a page whose links or inlinks changed but whose text did not
keeps what the engine derived from its text (`dataview.records.reuse_derived`).

Everything runs under the index's lock (`VaultIndex.run`): listeners are called during its
sync, and `current` inside its operation, so pages never change while a query runs.
"""

from __future__ import annotations

import bisect
import logging
import os
import sqlite3
from collections import defaultdict
from collections.abc import Iterator, KeysView, Sequence, Set
from typing import TYPE_CHECKING

from obsidian_mcp.dataview.pages.page_notes import PageNote
from obsidian_mcp.index import fts, links_table, metadata, notes_table, tags_table
from obsidian_mcp.index.extract import NoteRecord, extract
from obsidian_mcp.index.progress import ProgressFn
from obsidian_mcp.index.vault_index import Snapshot, VaultIndex
from obsidian_mcp.vault.links import Resolver, link_key, nfc_casefold, stem
from obsidian_mcp.vault.markdown import Link
from obsidian_mcp.vault.paths import NoteInfo

if TYPE_CHECKING:
    from obsidian_mcp.dataview.page import Page

log = logging.getLogger("obsidian_mcp.index")

PROGRESS_EVERY = 500  # notes between progress reports of a first build
_EMPTY: frozenset[str] = frozenset()


class VaultPages:
    """The `dataview.IndexedPages` of one vault's index. Register it before the index's first call."""

    def __init__(self, index: VaultIndex) -> None:
        self.index = index
        self._notes: dict[str, PageNote] | None = None  # None: not built (or dropped after a reset)
        self._resolver = Resolver(())
        self._by_key: dict[str, set[str]] = defaultdict(set)  # link key -> notes with such a link
        self._tagged: dict[str, set[str]] = defaultdict(set)  # lower-case tag (parents too) -> notes
        self._relink: set[str] = set()  # notes whose links must be resolved again
        self._stale: set[str] = set()  # notes whose page must be rebuilt
        self._ordered: list[Page] | None = None
        self._sorted_paths: list[str] | None = None
        self._conn: sqlite3.Connection | None = None  # the index connection the pages were built from
        self._resolved: dict[str, str | None] = {}  # `resolve`'s answers while the set of notes stays
        index.listeners.append(self)

    # -- what the query operation calls, under the index lock -------------------------------------

    def current(self, snapshot: Snapshot, progress: ProgressFn | None = None) -> VaultPages:
        """The pages, up to date with the index as `snapshot` sees it (built on first use)."""
        if self._notes is None or snapshot.conn is not self._conn:  # a new connection may be a new database
            self._build(snapshot.conn, progress)
        self._flush()
        return self

    def resolve(self, target: str, origin: str | None) -> str | None:
        """The engine's resolver: the note a link target (written in `origin`) leads to, or None
        when it leads nowhere or could mean several notes. A wikilink not starting with `./` or
        `../` resolves the same from every note, so those answers are kept until a note is added
        or removed (a query comparing `owner = [[Bob]]` on 10,000 pages resolves it once)."""
        relative = target.startswith(("./", "../"))
        if not relative and target in self._resolved:
            return self._resolved[target]
        found = self._resolver.resolve(Link(target=target, kind="wikilink", line=0), origin or "")
        path = found.path if found.status == "resolved" else None
        if not relative:
            self._resolved[target] = path
        return path

    # -- dataview.IndexedPages --------------------------------------------------------------------

    def __iter__(self) -> Iterator[Page]:
        return iter(self.ordered())

    def __len__(self) -> int:
        return len(self._notes or {})

    def get(self, path: str) -> Page | None:
        note = (self._notes or {}).get(path)
        return note.page if note is not None else None

    def ordered(self) -> Sequence[Page]:
        if self._ordered is None:
            notes = self._notes or {}
            self._ordered = [page for path in self._paths_in_order() if (page := notes[path].page) is not None]
        return self._ordered

    def paths(self) -> KeysView[str]:
        return (self._notes or {}).keys()

    def tagged(self, tag: str) -> Set[str]:
        return self._tagged.get(tag, _EMPTY)

    def in_folder(self, folder: str) -> Set[str]:
        paths = self._paths_in_order()
        prefix = folder + "/"
        start = bisect.bisect_left(paths, prefix)
        end = bisect.bisect_left(paths, folder + "0")  # "0" follows "/" in code point order
        return set(paths[start:end])

    def linking_to(self, path: str) -> Set[str]:
        note = (self._notes or {}).get(path)
        return note.inlinks if note is not None else _EMPTY

    def _paths_in_order(self) -> list[str]:
        if self._sorted_paths is None:
            self._sorted_paths = sorted(self._notes or {})
        return self._sorted_paths

    # -- sync.SyncListener: called during the index's sync ------------------------------------------

    def note_indexed(self, info: NoteInfo, data: bytes, digest: str, record: NoteRecord | None) -> None:
        if self._notes is None:
            return
        try:
            self._read(info, data, digest, record)
        except Exception:  # a page cache must never break the sync: start over on next use
            log.exception("could not update the query pages; rebuilding them")
            self.index_reset()

    def note_dropped(self, rel: str) -> None:
        if self._notes is None or rel not in self._notes:
            return
        note = self._notes.pop(rel)
        self._forget_metadata(note)
        for target in note.outlinks:
            other = self._notes.get(target)
            if other is not None:
                other.inlinks.discard(rel)
                self._stale.add(target)
        _remove_path(self._resolver, rel)
        self._relink |= self._by_key.get(link_key(rel), set())
        self._relink.discard(rel)
        self._stale.discard(rel)
        self._paths_changed()

    def index_reset(self) -> None:
        self._notes = None
        self._resolver = Resolver(())
        self._by_key.clear()
        self._tagged.clear()
        self._relink.clear()
        self._stale.clear()
        self._paths_changed()

    # -- building and updating --------------------------------------------------------------------

    def _build(self, conn: sqlite3.Connection, progress: ProgressFn | None) -> None:
        self.index_reset()
        rows = notes_table.page_rows(conn)
        tags = tags_table.by_note(conn)
        links = links_table.by_note(conn)
        aliases = fts.aliases_by_note(conn)
        stored = metadata.read_all(conn, {row.id: row.body_line for row in rows})
        notes: dict[str, PageNote] = {}
        root = self.index.vault.root
        total = len(rows)
        for done, (note_id, path, digest, size, mtime, body_line) in enumerate(rows, 1):
            try:
                ctime = os.stat(root / path).st_ctime
            except OSError:  # gone since the sync: its next sync drops it
                ctime = mtime
            note = PageNote(path, digest, size, mtime, ctime)
            note.from_tables(
                stored.get(note_id), body_line, aliases.get(note_id, ()), tags.get(note_id, ()), links.get(note_id, ())
            )
            notes[path] = note
            if progress is not None and total >= PROGRESS_EVERY and done % PROGRESS_EVERY == 0:
                progress(done, total)
        self._notes = notes
        self._conn = conn
        self._resolver = Resolver(notes)
        for note in notes.values():
            self._remember_metadata(note)
            self._relink.add(note.path)
            self._stale.add(note.path)

    def _read(self, info: NoteInfo, data: bytes, digest: str, record: NoteRecord | None) -> None:
        assert self._notes is not None
        old = self._notes.get(info.rel)
        if old is not None and old.digest == digest:
            if old.mtime != info.mtime:  # touched, same text: only file.mtime changes
                old.mtime = info.mtime
                self._stale.add(info.rel)
            return
        try:
            ctime = os.stat(self.index.vault.root / info.rel).st_ctime
        except OSError:
            ctime = info.mtime
        note = PageNote(info.rel, digest, len(data), info.mtime, ctime)
        if record is None:  # unchanged for the index, but new to the pages
            record = extract(data.decode("utf-8", errors="replace"), info.rel)
        note.from_record(record)
        if old is not None:
            self._forget_metadata(old)
            note.inlinks = old.inlinks
            note.outlinks = old.outlinks
            note.page = old.page  # kept until rebuilt, so its derived data can be compared
        else:
            _add_path(self._resolver, info.rel)
            self._relink |= self._by_key.get(link_key(info.rel), set())
            self._paths_changed()
        self._notes[info.rel] = note
        self._remember_metadata(note)
        self._relink.add(info.rel)
        self._stale.add(info.rel)

    def _remember_metadata(self, note: PageNote) -> None:
        from obsidian_mcp.dataview.records import full_tags

        for tag in {tag.lower() for tag in full_tags(note.tags)}:
            self._tagged[tag].add(note.path)
        for _, target in note.links:
            self._by_key[link_key(target)].add(note.path)

    def _forget_metadata(self, note: PageNote) -> None:
        from obsidian_mcp.dataview.records import full_tags

        for tag in {tag.lower() for tag in full_tags(note.tags)}:
            tagged = self._tagged.get(tag)
            if tagged is not None:
                tagged.discard(note.path)
                if not tagged:
                    del self._tagged[tag]
        for _, target in note.links:
            sources = self._by_key.get(link_key(target))
            if sources is not None:
                sources.discard(note.path)

    def _flush(self) -> None:
        from obsidian_mcp.dataview.records import reuse_derived

        """Resolve the links that may have changed, then rebuild the pages that did."""
        notes = self._notes
        assert notes is not None
        for path in self._relink:
            note = notes.get(path)
            if note is None:
                continue
            found = (self._resolver.resolve(Link(target=t, kind=k, line=0), path) for k, t in note.links)  # type: ignore[arg-type]
            outlinks = tuple(dict.fromkeys(f.path for f in found if f.status == "resolved" and f.path is not None))
            if outlinks == note.outlinks:
                continue
            before, after = set(note.outlinks), set(outlinks)
            for target in before - after:
                if (other := notes.get(target)) is not None:
                    other.inlinks.discard(path)
                    self._stale.add(target)
            for target in after - before:
                if (other := notes.get(target)) is not None:
                    other.inlinks.add(path)
                    self._stale.add(target)
            note.outlinks = outlinks
            self._stale.add(path)
        self._relink.clear()
        for path in self._stale:
            note = notes.get(path)
            if note is None:
                continue
            old, note.page = note.page, note.build()
            if old is not None:
                reuse_derived(old, note.page)
        if self._stale:
            self._ordered = None
        self._stale.clear()

    def _paths_changed(self) -> None:
        self._ordered = None
        self._sorted_paths = None
        self._resolved.clear()


def _add_path(resolver: Resolver, path: str) -> None:
    resolver.by_path[nfc_casefold(path)] = path
    bisect.insort(resolver.by_name[nfc_casefold(stem(path))], path)


def _remove_path(resolver: Resolver, path: str) -> None:
    key = nfc_casefold(path)
    if resolver.by_path.get(key) == path:
        del resolver.by_path[key]
    same = resolver.by_name.get(nfc_casefold(stem(path)))
    if same is not None and path in same:
        same.remove(path)
