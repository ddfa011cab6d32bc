"""check_links through the index: unresolved links, orphans and ambiguous links, folder scope, paging."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.links.check import check_links
from obsidian_mcp.links.results import CheckLinksResult
from obsidian_mcp.vault.errors import InvalidArgument, NoteNotFound, PathRefused
from obsidian_mcp.vault.paths import Vault

FILES = {
    "Home.md": (
        "# Home\n"  # 1
        "[[Projects/Alpha]] [[Missing]] ![[Embedded]] [[Meeting Notes]] [[#Self heading]]\n"  # 2
        "```\n[[In Code]]\n```\n"  # 3-5
        "`[[Inline Code]]` [md](Nested/Deep.md) ![img](pic.png) [[photo.png]]\n"  # 6
        "[[Missing]] and [[missing|again]] and [[Missing#Part]]\n"  # 7: one entry per target as written
        "[[Areas/Meeting Notes]] [[Unwritten Idea]]\n"  # 8
    ),
    "Projects/Alpha.md": "[[Home]] and [[Alpha]] (itself)\n",
    "Projects/Meeting Notes.md": "x\n",
    "Areas/Meeting Notes.md": "x\n",
    "Embedded.md": "only ever embedded\n",
    "Nested/Deep.md": "[up](../Gone.md) [[./Sibling]] [[Meeting Notes]]\n",
    "Nested/Sibling.md": "nothing\n",
    "Lonely.md": "[[Lonely]] talks only to itself, [[#top]]\n",
    "Orphan Folder/Only.md": "no links at all\n",
    ".hidden/Secret.md": "[[Lonely]]\n",  # hidden: not a note, so no link from it counts
}


def build(tmp_path: Path, files: dict[str, str]) -> VaultIndex:
    root = tmp_path / "vault"
    root.mkdir()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return VaultIndex(Vault(root), tmp_path / "index.sqlite3", rescan_seconds=0)


@pytest.fixture
def index(tmp_path: Path) -> VaultIndex:
    return build(tmp_path, FILES)


def as_sets(
    result: CheckLinksResult,
) -> tuple[list[tuple[str, int, str]], list[str], list[tuple[str, int, str, list[str]]]]:
    return (
        [(u.path, u.line, u.target) for u in result.unresolved],
        result.orphans,
        [(a.path, a.line, a.target, a.candidates) for a in result.ambiguous],
    )


def test_the_whole_vault(index: VaultIndex) -> None:
    result = check_links(index)
    unresolved, orphans, ambiguous = as_sets(result)
    assert unresolved == [
        ("Home.md", 2, "Missing"),
        ("Home.md", 7, "Missing"),
        ("Home.md", 7, "missing"),
        ("Home.md", 8, "Unwritten Idea"),
        ("Nested/Deep.md", 1, "../Gone.md"),
    ]
    assert orphans == ["Lonely.md", "Orphan Folder/Only.md"]  # ambiguous candidates count as linked
    both = ["Areas/Meeting Notes.md", "Projects/Meeting Notes.md"]
    assert ambiguous == [("Home.md", 2, "Meeting Notes", both), ("Nested/Deep.md", 1, "Meeting Notes", both)]
    assert result.totals.model_dump() == {"notes": 9, "unresolved": 5, "orphans": 2, "ambiguous": 2}
    assert result.next_cursor is None


def test_a_folder_scopes_the_notes_checked_but_links_come_from_everywhere(index: VaultIndex) -> None:
    result = check_links(index, "Nested")
    assert as_sets(result) == (
        [("Nested/Deep.md", 1, "../Gone.md")],
        [],  # Deep is linked from Home, Sibling from Deep
        [("Nested/Deep.md", 1, "Meeting Notes", ["Areas/Meeting Notes.md", "Projects/Meeting Notes.md"])],
    )
    assert result.totals.notes == 2
    assert check_links(index, "Orphan Folder").orphans == ["Orphan Folder/Only.md"]
    assert check_links(index, "Projects").model_dump()["totals"] == {
        "notes": 2,
        "unresolved": 0,
        "orphans": 0,
        "ambiguous": 0,
    }


def test_the_answer_follows_the_vault(index: VaultIndex) -> None:
    root = index.vault.root
    (root / "Missing.md").write_text("now it exists\n", encoding="utf-8")
    (root / "Orphan Folder" / "Only.md").unlink()
    (root / "Linker.md").write_text("[[Lonely]]\n", encoding="utf-8")
    unresolved, orphans, _ = as_sets(check_links(index))
    assert unresolved == [("Home.md", 8, "Unwritten Idea"), ("Nested/Deep.md", 1, "../Gone.md")]
    assert orphans == ["Linker.md"]


def test_paging_returns_every_entry_once(index: VaultIndex) -> None:
    full = check_links(index)
    pages: list[CheckLinksResult] = []
    cursor: str | None = None
    while True:
        page = check_links(index, limit=2, cursor=cursor)
        pages.append(page)
        assert page.totals == full.totals
        assert len(page.unresolved) <= 2 and len(page.orphans) <= 2 and len(page.ambiguous) <= 2
        cursor = page.next_cursor
        if cursor is None:
            break
    assert len(pages) == 3
    assert [u for p in pages for u in p.unresolved] == full.unresolved
    assert [o for p in pages for o in p.orphans] == full.orphans
    assert [a for p in pages for a in p.ambiguous] == full.ambiguous
    assert (pages[1].orphans, pages[2].orphans, pages[2].ambiguous) == ([], [], [])


def test_a_cursor_continues_after_its_last_entry_when_the_vault_changes(index: VaultIndex) -> None:
    first = check_links(index, limit=2)
    assert [u.target for u in first.unresolved] == ["Missing", "Missing"]
    (index.vault.root / "Early.md").write_text("[[Aaa]]\n", encoding="utf-8")  # sorts before the cursor
    second = check_links(index, limit=2, cursor=first.next_cursor)
    assert [(u.path, u.line, u.target) for u in second.unresolved] == [
        ("Home.md", 7, "missing"),
        ("Home.md", 8, "Unwritten Idea"),
    ]
    assert second.totals.unresolved == 6


def encoded(payload: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode()


def test_bad_arguments(index: VaultIndex) -> None:
    for cursor, reason in [
        ("not a cursor!", "invalid"),
        (base64.urlsafe_b64encode(b'{"v": 2}').decode(), "invalid"),
        (encoded({"v": 1, "folder": "", "unresolved": ["x", "1", "y"]}), "invalid"),
        (encoded({"v": 1, "folder": "", "orphans": 3}), "invalid"),
        (encoded({"v": 1, "folder": "Nested"}), "mismatch"),
    ]:
        with pytest.raises(InvalidArgument) as caught:
            check_links(index, "", cursor=cursor)
        assert (caught.value.field, caught.value.reason) == ("cursor", reason)
    with pytest.raises(InvalidArgument) as other_folder:
        check_links(index, "Nested", cursor=check_links(index, "", limit=1).next_cursor)
    assert other_folder.value.reason == "mismatch"
    for limit in (0, 1001, True):
        with pytest.raises(InvalidArgument) as bad_limit:
            check_links(index, limit=limit)
        assert bad_limit.value.field == "limit"
    with pytest.raises(NoteNotFound) as missing:
        check_links(index, "No Such Folder")
    assert missing.value.resource == "folder"
    for hostile in ("../x", ".hidden", "/etc"):
        with pytest.raises(PathRefused):
            check_links(index, hostile)


def test_an_empty_vault(tmp_path: Path) -> None:
    result = check_links(build(tmp_path, {}))
    assert as_sets(result) == ([], [], []) and result.totals.notes == 0 and result.next_cursor is None


def test_wikilinks_in_frontmatter_keep_notes_from_being_orphans(tmp_path: Path) -> None:
    files = {
        "Hub.md": '---\nrelated: "[[Target]]"\nup: ["[[Folder/Deep|deep]]", "[[Gone]]"]\nself: "[[Hub]]"\n---\nbody\n',
        "Target.md": "x\n",
        "Folder/Deep.md": "x\n",
        "Alone.md": '---\ntitle: "[[Alone]] links only to itself"\n---\n',
    }
    result = check_links(build(tmp_path, files))
    assert result.orphans == ["Alone.md", "Hub.md"]
    assert result.unresolved == []  # frontmatter links are not checked, only counted as inbound
