"""rename_tag: in one note's text (byte-exact elsewhere) and across the vault through the index."""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pytest
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.links.retag import rename_tag
from obsidian_mcp.links.tags import list_tags
from obsidian_mcp.search import search_notes
from obsidian_mcp.vault.errors import InvalidArgument
from obsidian_mcp.vault.markdown import parse_note
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.tag_rename import check_tag
from obsidian_mcp.vault.tag_rename import rename_tag as rename_in_text


def changed_segments(before: str, after: str) -> list[tuple[str, str]]:
    """(old, new) text of every region that differs, compared word by word (every other character
    is a token of its own, so a changed line break or space would show)."""
    a, b = re.findall(r"\w+|\W", before), re.findall(r"\w+|\W", after)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [("".join(a[i1:i2]), "".join(b[j1:j2])) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"]


# -- inline tags ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "count"),
    [
        ("#project at the start\n", "#work at the start\n", 1),
        ("a #project and #Project/alpha/beta, #PROJECT.\n", "a #work and #work/alpha/beta, #work.\n", 3),
        ("#projects #project-x #project_y #area/project #projectx/y\n", None, 0),  # longer or other tags
        ("x#project [[Note#project]] http://a.b/#project\n", None, 0),  # not after whitespace
        ("`#project` and ``a #project b``\n", None, 0),  # inline code
        (
            "```\n#project\n```\n~~~md\n#project\n~~~\n#project\n",
            "```\n#project\n```\n~~~md\n#project\n~~~\n#work\n",
            1,
        ),
        ("# project heading\n#project/\n", "# project heading\n#work/\n", 1),  # trailing / kept
        ("tab\t#project\r\nnext #project\r\n", "tab\t#work\r\nnext #work\r\n", 2),  # CRLF kept
        ("\ufeff#project no final break", "\ufeff#work no final break", 1),  # BOM, no final line break
        ("#project/#project\n", "#work/#project\n", 1),
        ("#1234 #project/2026\n", "#1234 #work/2026\n", 1),
    ],
)
def test_inline_tags(text: str, expected: str | None, count: int) -> None:
    result = rename_in_text(text, "project", "work")
    assert result.text == (text if expected is None else expected)
    assert result.occurrences == count
    for old, new in changed_segments(text, result.text):
        assert old.casefold() == "project" and new == "work"


def test_nested_renames_keep_the_rest_as_written() -> None:
    result = rename_in_text("#Project/Alpha #project/alpha/Beta\n", "project/alpha", "work/a")
    assert (result.text, result.occurrences) == ("#work/a #work/a/Beta\n", 2)
    assert rename_in_text("#project #project/beta\n", "project/alpha", "x").occurrences == 0


def test_unicode_tags_compare_like_obsidian() -> None:
    nfd = "#Cafe\u0301/menu #CAFÉ\n"  # decomposed and upper-case spellings of the same tag
    result = rename_in_text(nfd, "café", "bistro")
    assert (result.text, result.occurrences) == ("#bistro/menu #bistro\n", 2)


def test_a_rename_that_only_changes_case_skips_what_is_already_spelled_so() -> None:
    result = rename_in_text("#Project #project\n", "project", "Project")
    assert (result.text, result.occurrences) == ("#Project #Project\n", 1)


# -- frontmatter ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frontmatter", "expected", "count"),
    [
        # block lists, with and without '#', quotes, comments and nested tags
        (
            "tags:\n  - project   # main\n  - '#project/alpha'\n  - \"Project\"\n  - other\n",
            "tags:\n  - work   # main\n  - '#work/alpha'\n  - other\n",  # "Project" became a repeat: merged
            3,
        ),
        ("tags:\n- project\n- projects\n", "tags:\n- work\n- projects\n", 1),  # zero-indent list
        ("tags: [project, 'p', \"#project/x\"]\n", "tags: [work, 'p', \"#work/x\"]\n", 2),  # flow list
        ("tags: project\n", "tags: work\n", 1),  # string forms
        ("tag: project, other # project/x is a YAML comment\n", "tag: work, other # project/x is a YAML comment\n", 1),
        ('tag: "project, other #project/x"\n', 'tag: "work, other #work/x"\n', 2),
        ("tags: '#project'\n", "tags: '#work'\n", 1),
        ('tags: "project other"\n', 'tags: "work other"\n', 1),
        ("title: project\naliases: [project]\nnested:\n  tags: [project]\n", None, 0),  # not tags
        ("tags: [2024, true, null, projectx]\n", None, 0),
        # escapes or folded lines: the scalar is rewritten as one double-quoted string
        ('tags: ["proj\\x65ct"]\n', 'tags: ["work"]\n', 1),
        ("tags: project\n  other\n", 'tags: "work other"\n', 1),
    ],
)
def test_frontmatter_tags(frontmatter: str, expected: str | None, count: int) -> None:
    text = f"---\n{frontmatter}---\nbody\n"
    result = rename_in_text(text, "project", "work")
    assert result.text == (text if expected is None else f"---\n{expected}---\nbody\n")
    assert result.occurrences == count


@pytest.mark.parametrize(
    ("frontmatter", "expected"),
    [
        ("tags:\n  - project\n  - work\n", "tags:\n  - work\n"),  # merged: the renamed item goes
        ("tags:\n  - work\n  - project # old\n  - x\n", "tags:\n  - work\n  - x\n"),
        ("tags:\n  - Project\n  - project\n", "tags:\n  - work\n"),  # duplicates among the renamed
        ("tags: [project, work]\n", "tags: [work]\n"),
        ("tags: [work, project]\n", "tags: [work]\n"),
        ("tags: [a, project, b, Work, c]\n", "tags: [a, b, Work, c]\n"),
        ("tags: [work, x, project, project/y]\n", "tags: [work, x, work/y]\n"),
        ("tags: [project, work, project]\n", "tags: [work]\n"),
        ("tags: project, work\n", "tags: work\n"),
        ("tags: work project\n", "tags: work\n"),
        ("tags: '#work #project'\n", "tags: '#work'\n"),
        ("tags:\n  - '#Work'\n  - project\n", "tags:\n  - '#Work'\n"),  # '#' and case do not make it another
    ],
)
def test_renaming_into_an_existing_tag_merges_without_duplicates(frontmatter: str, expected: str) -> None:
    text = f"---\n{frontmatter}---\n#project\n"
    result = rename_in_text(text, "project", "work")
    assert result.text == f"---\n{expected}---\n#work\n"
    merged = parse_note(result.text, "n.md").frontmatter
    tags = merged.get("tags", merged.get("tag"))
    values = tags if isinstance(tags, list) else str(tags).split()
    keys = [value.lstrip("#").casefold() for value in values]
    assert len(keys) == len(set(keys))


def test_a_rename_yaml_would_misread_is_quoted() -> None:
    assert rename_in_text("---\ntags: draft\n---\n", "draft", "yes").text == "---\ntags: 'yes'\n---\n"
    assert rename_in_text("---\ntags:\n  - draft\n---\n", "draft", "null").text == "---\ntags:\n  - 'null'\n---\n"
    assert parse_note("---\ntags: ['yes', 'null']\n---\n", "n").tags == ["yes", "null"]


def test_crlf_bom_and_invalid_yaml() -> None:
    crlf = "\ufeff---\r\ntags:\r\n  - project\r\n  - work\r\n---\r\n#project\r\n"
    assert rename_in_text(crlf, "project", "work").text == "\ufeff---\r\ntags:\r\n  - work\r\n---\r\n#work\r\n"
    broken = "---\ntags: [project\n---\n#project\n"
    result = rename_in_text(broken, "project", "work")
    assert (result.text, result.occurrences) == ("---\ntags: [project\n---\n#work\n", 1)


@pytest.mark.parametrize(
    ("value", "tag"),
    [("project", "project"), ("#project/alpha", "project/alpha"), (" #Ünïcode ", "Ünïcode"), ("a-b_c", "a-b_c")],
)
def test_valid_tag_arguments(value: str, tag: str) -> None:
    assert check_tag(value, "tag") == tag


@pytest.mark.parametrize("value", ["", "#", "two words", "a//b", "a/", "/a", "1234", "a,b", "##a", "a#b", "x" * 501, 7])
def test_invalid_tag_arguments(value: object) -> None:
    with pytest.raises(InvalidArgument) as caught:
        check_tag(value, "new_tag")
    assert (caught.value.field, caught.value.reason) == ("new_tag", "invalid_tag")


# -- across the vault ------------------------------------------------------------------------------

FILES = {
    "Projects/Alpha.md": "---\ntags: [project, work]\n---\n# Alpha\n\n#project/alpha notes\n",
    "Projects/Beta.md": "---\ntags:\n  - project\n---\nBeta #projects and `#project`\n",
    "Daily/2026-11-23.md": "- [ ] #Project review\n```\n#project\n```\n",
    "Other.md": "#projectx #area/project nothing to do\n",
    "Crlf.md": "\ufeff#project\r\nline two\r\n",
}


@pytest.fixture
def vault_index(tmp_path: Path) -> tuple[VaultIndex, TrackedLocks]:
    root = tmp_path / "vault"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode("utf-8"))
    locks = TrackedLocks()
    return VaultIndex(Vault(root), tmp_path / "index.sqlite3", changes=locks, rescan_seconds=3600), locks


def test_rename_across_the_vault_leaves_everything_else_byte_exact(
    vault_index: tuple[VaultIndex, TrackedLocks],
) -> None:
    index, locks = vault_index
    root = index.vault.root
    assert {t.tag for t in list_tags(index).tags} >= {"project", "project/alpha"}
    untouched = (root / "Other.md").stat().st_mtime_ns
    result = rename_tag(index, locks, "#project", "work")
    assert result.updated_notes == ["Crlf.md", "Daily/2026-11-23.md", "Projects/Alpha.md", "Projects/Beta.md"]
    assert result.occurrences == 5 and result.warnings == []
    assert (root / "Projects/Alpha.md").read_text(
        encoding="utf-8"
    ) == "---\ntags: [work]\n---\n# Alpha\n\n#work/alpha notes\n"
    assert (root / "Projects/Beta.md").read_text(
        encoding="utf-8"
    ) == "---\ntags:\n  - work\n---\nBeta #projects and `#project`\n"
    assert (root / "Daily/2026-11-23.md").read_text(encoding="utf-8") == "- [ ] #work review\n```\n#project\n```\n"
    assert (root / "Crlf.md").read_bytes() == "\ufeff#work\r\nline two\r\n".encode()
    assert (root / "Other.md").stat().st_mtime_ns == untouched
    # the index knows at once (the writes went through the tracked locks; no rescan is due for an hour)
    tags = {t.tag: t.count for t in list_tags(index).tags}
    assert "project" not in tags and tags["work"] == 4 and tags["work/alpha"] == 1
    assert {hit.path for hit in search_notes(index, "review", tags=["work"]).results} == {"Daily/2026-11-23.md"}
    again = rename_tag(index, locks, "project", "work")
    assert (again.updated_notes, again.occurrences) == ([], 0)


def test_a_note_that_cannot_be_rewritten_is_reported(vault_index: tuple[VaultIndex, TrackedLocks]) -> None:
    index, locks = vault_index
    bad = index.vault.root / "Bad.md"
    bad.write_bytes(b"#project \xff\n")  # indexed with a replacement character, not UTF-8 on disk
    result = rename_tag(index, locks, "project", "work")
    assert "Bad.md" not in result.updated_notes and len(result.updated_notes) == 4
    [warning] = result.warnings
    assert warning.code == "PARTIAL_RESULTS"
    assert warning.model_dump()["failed"][0]["path"] == "Bad.md"
    assert bad.read_bytes() == b"#project \xff\n"


def test_same_or_invalid_tags_are_refused_before_anything_changes(vault_index: tuple[VaultIndex, TrackedLocks]) -> None:
    index, locks = vault_index
    before = {p: p.read_bytes() for p in index.vault.root.rglob("*.md")}
    for tag, new_tag, field, reason in [
        ("project", "project", "new_tag", "same_tag"),
        ("pro ject", "work", "tag", "invalid_tag"),
        ("project", "", "new_tag", "invalid_tag"),
    ]:
        with pytest.raises(InvalidArgument) as caught:
            rename_tag(index, locks, tag, new_tag)
        assert (caught.value.field, caught.value.reason) == (field, reason)
    assert {p: p.read_bytes() for p in index.vault.root.rglob("*.md")} == before
    assert not any(name.endswith(".tmp") for _, _, names in os.walk(index.vault.root) for name in names)
