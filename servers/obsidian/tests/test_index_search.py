"""search_notes on small vaults: ranking, phrases, prefixes, filters, line/heading/snippet, freshness."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from obsidian_mcp import search
from obsidian_mcp.index import sync
from obsidian_mcp.index.changes import TrackedLocks
from obsidian_mcp.index.vault_index import VaultIndex
from obsidian_mcp.search.query import Query
from obsidian_mcp.search.results import SearchResult
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.errors import InvalidArgument, NoteNotFound, PathRefused
from obsidian_mcp.vault.paths import Vault

PAST = time.time() - 3600  # an mtime old enough that no note counts as "racy"

Make = Callable[..., VaultIndex]


def write(root: Path, rel: str, text: str, mtime: float | None = PAST) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    folder.mkdir()
    return folder


@pytest.fixture
def make_index(root: Path, tmp_path: Path) -> Make:
    def make(files: dict[str, str] | None = None, **options: object) -> VaultIndex:
        for rel, text in (files or {}).items():
            write(root, rel, text)
        options.setdefault("rescan_seconds", 0)
        return VaultIndex(Vault(root), tmp_path / "index" / "index.sqlite3", **options)  # type: ignore[arg-type]

    return make


def paths(result: SearchResult) -> list[str]:
    return [hit.path for hit in result.results]


def test_a_title_match_outranks_a_body_match(make_index: Make) -> None:
    index = make_index(
        {
            "Other.md": "# Other\n\nWe walked to the lighthouse and back, a long walk along the shore.\n",
            "Lighthouse.md": "# Lighthouse\n\nNotes on the old keeper's cottage.\n",
        }
    )
    result = search.search_notes(index, "lighthouse")
    assert paths(result) == ["Lighthouse.md", "Other.md"]
    assert result.total == 2
    assert result.results[0].score > result.results[1].score > 0


def test_the_file_name_counts_as_title_even_when_the_h1_differs(make_index: Make) -> None:
    index = make_index({"Projects/Meeting Notes.md": "# Alpha weekly sync\n\nagenda\n", "B.md": "some meeting notes\n"})
    assert paths(search.search_notes(index, "meeting notes"))[0] == "Projects/Meeting Notes.md"


def test_a_match_only_in_code_ranks_below_prose(make_index: Make) -> None:
    index = make_index(
        {
            "Code.md": "# Snippets\n\n```python\nzebrafish = load()\n```\n",
            "Prose.md": "# Lab\n\nThe zebrafish tank needs cleaning.\n",
        }
    )
    result = search.search_notes(index, "zebrafish")
    assert paths(result) == ["Prose.md", "Code.md"]
    code_hit = result.results[1]
    assert code_hit.line == 4 and code_hit.heading == "Snippets"
    assert code_hit.snippet == "zebrafish = load()"


def test_a_planted_phrase_is_found_with_its_line_heading_and_snippet(make_index: Make) -> None:
    filler = "\n".join(f"Paragraph {n} talks about nothing in particular." for n in range(200))
    text = f"---\ntitle: Essay\n---\n# Essay\n\n{filler}\n\n## Hidden part\n\nOnly here: the quiet cormorant sings.\n"
    index = make_index({"Essay.md": text, "Noise.md": "quiet days, a cormorant, singing\n"})
    result = search.search_notes(index, '"quiet cormorant"')
    assert paths(result) == ["Essay.md"]
    hit = result.results[0]
    assert hit.title == "Essay"
    assert hit.line == text.split("\n").index("Only here: the quiet cormorant sings.") + 1
    assert hit.heading == "Hidden part"
    assert "quiet cormorant" in hit.snippet and "\n" not in hit.snippet


def test_phrases_words_prefixes_exclusions_and_or(make_index: Make) -> None:
    index = make_index(
        {
            "A.md": "Bought a sad sandwich for lunch.\n",
            "B.md": "The sandwich was sad and soggy.\n",
            "C.md": "Sandwiches everywhere.\n",
        }
    )
    assert paths(search.search_notes(index, '"sad sandwich"')) == ["A.md"]
    assert sorted(paths(search.search_notes(index, "sad sandwich"))) == ["A.md", "B.md"]
    assert sorted(paths(search.search_notes(index, "sandwich*"))) == ["A.md", "B.md", "C.md"]
    assert paths(search.search_notes(index, "sandwich -soggy")) == ["A.md"]
    assert sorted(paths(search.search_notes(index, "soggy OR everywhere"))) == ["B.md", "C.md"]


def test_case_and_accents_are_ignored(make_index: Make) -> None:
    index = make_index({"Café Recipes.md": "# Café Recipes\n\nCrème brûlée.\n", "Plain.md": "nothing\n"})
    assert paths(search.search_notes(index, "cafe")) == ["Café Recipes.md"]
    assert paths(search.search_notes(index, "CRÈME BRULEE")) == ["Café Recipes.md"]


def test_folder_and_tag_filters(make_index: Make) -> None:
    index = make_index(
        {
            "Projects/Alpha.md": "---\ntags: [project/alpha]\n---\nlaunch plan\n",
            "Projects/Beta.md": "#Project launch plan\n",
            "Projects/Sub/Gamma.md": "launch plan #area/health\n",
            "Projects2/Delta.md": "launch plan #project\n",
            "Root.md": "launch plan\n",
        }
    )
    assert sorted(paths(search.search_notes(index, "launch", folder="Projects"))) == [
        "Projects/Alpha.md",
        "Projects/Beta.md",
        "Projects/Sub/Gamma.md",
    ]
    assert paths(search.search_notes(index, "launch", folder="Projects/Sub")) == ["Projects/Sub/Gamma.md"]
    assert sorted(paths(search.search_notes(index, "launch", tags=["#PROJECT"]))) == [
        "Projects/Alpha.md",
        "Projects/Beta.md",
        "Projects2/Delta.md",
    ]
    assert paths(search.search_notes(index, "launch", tags=["project/alpha"])) == ["Projects/Alpha.md"]
    assert paths(search.search_notes(index, "launch", tags=["project", "area/health"])) == []
    assert sorted(paths(search.search_notes(index, "launch", folder="Projects", tags=["project"]))) == [
        "Projects/Alpha.md",
        "Projects/Beta.md",
    ]
    with pytest.raises(NoteNotFound):
        search.search_notes(index, "launch", folder="Nowhere")
    with pytest.raises(PathRefused):
        search.search_notes(index, "launch", folder="../x")
    with pytest.raises(InvalidArgument):
        search.search_notes(index, "launch", tags=["#"])


def test_total_counts_matches_before_the_limit(make_index: Make) -> None:
    index = make_index({f"N{n:02d}.md": f"common word {n}\n" for n in range(30)})
    result = search.search_notes(index, "common", limit=5)
    assert len(result.results) == 5 and result.total == 30
    with pytest.raises(InvalidArgument):
        search.search_notes(index, "common", limit=0)
    with pytest.raises(InvalidArgument):
        search.search_notes(index, "common", limit=101)


def test_lines_point_into_frontmatter_and_title_only_matches_have_none(make_index: Make) -> None:
    index = make_index(
        {
            "Meta.md": "---\nauthor: Ottoline Marsh\nstatus: draft\n---\n# Meta\n\nbody text\n",
            "Ottoline.md": "nothing about the name here\n",
        }
    )
    result = search.search_notes(index, "ottoline")
    by_path = {hit.path: hit for hit in result.results}
    assert by_path["Meta.md"].line == 2 and by_path["Meta.md"].heading is None
    assert by_path["Meta.md"].snippet == "Ottoline Marsh"  # frontmatter values are indexed, not keys
    assert by_path["Ottoline.md"].line is None
    assert by_path["Ottoline.md"].snippet == "nothing about the name here"


def test_snippets_are_short_single_lines_around_the_match(make_index: Make) -> None:
    long_line = "lorem " * 100 + "needle in the haystack " + "ipsum " * 100
    index = make_index({"Long.md": f"# Long\n\n{long_line}\n"})
    hit = search.search_notes(index, "needle").results[0]
    assert "needle" in hit.snippet and len(hit.snippet) <= 162
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")


@pytest.mark.parametrize(
    "query",
    ['"', '""', "*", "NEAR(a b)", "a OR", "-", "(((", "AND AND", "title:x", "^", "日本語 🦜", "x" * 10_000, "a\x00b"],
)
def test_hostile_queries_answer_or_raise_invalid_argument(make_index: Make, query: str) -> None:
    index = make_index({"A.md": "a title x and or near 日本語\n"})
    try:
        result = search.search_notes(index, query)
    except InvalidArgument as exc:
        assert exc.field == "query"
    else:
        assert result.warnings == []


def test_a_query_fts5_rejects_is_answered_by_a_plain_scan(make_index: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    index = make_index({"A.md": "# A\n\nthe heron flies\n", "B.md": "nothing\n"})
    monkeypatch.setattr(Query, "match_expression", lambda self: "heron AND (")
    result = search.search_notes(index, "heron")
    assert paths(result) == ["A.md"] and result.results[0].line == 3
    assert [w.code for w in result.warnings] == ["SEARCH_DEGRADED"]


# -- freshness ----------------------------------------------------------------------------------


def test_external_creates_edits_deletes_and_renames_are_seen(root: Path, make_index: Make) -> None:
    index = make_index({"Keep.md": "the original text\n", "Gone.md": "soon deleted kestrel\n"})
    assert paths(search.search_notes(index, "kestrel")) == ["Gone.md"]
    write(root, "New.md", "a brand new kestrel note\n")
    write(root, "Keep.md", "the edited kestrel text\n", mtime=PAST + 10)
    (root / "Gone.md").unlink()
    assert sorted(paths(search.search_notes(index, "kestrel"))) == ["Keep.md", "New.md"]
    assert search.search_notes(index, "original").total == 0
    os.rename(root / "New.md", root / "Renamed.md")
    assert sorted(paths(search.search_notes(index, "kestrel"))) == ["Keep.md", "Renamed.md"]


def test_a_same_size_edit_within_the_same_mtime_is_caught_while_racy(root: Path, make_index: Make) -> None:
    path = write(root, "Fresh.md", "alpha text\n", mtime=None)
    index = make_index()
    assert paths(search.search_notes(index, "alpha")) == ["Fresh.md"]
    stamp = os.stat(path)
    path.write_text("gamma text\n", encoding="utf-8")
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert paths(search.search_notes(index, "gamma")) == ["Fresh.md"]


def test_an_unchanged_vault_is_synced_without_reading_files(make_index: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    index = make_index({f"N{n}.md": f"note {n}\n" for n in range(50)})
    search.search_notes(index, "note")
    reads: list[object] = []
    real = sync.read_bytes
    monkeypatch.setattr(sync, "read_bytes", lambda path: reads.append(path) or real(path))
    assert search.search_notes(index, "note").total == 50
    assert reads == []


def test_writes_through_the_server_are_seen_between_rescans(root: Path, make_index: Make) -> None:
    locks = TrackedLocks()
    index = make_index({"Old.md": "plain\n"}, changes=locks, rescan_seconds=3600, watch=False)  # no change feed
    vault = index.vault
    assert search.search_notes(index, "plain").total == 1
    notes.write_note(vault, locks, "Made by a tool", "an osprey appears\n")
    write(root, "External.md", "an osprey elsewhere\n")  # not seen until the next rescan
    assert paths(search.search_notes(index, "osprey")) == ["Made by a tool.md"]
    notes.delete_note(vault, locks, "Made by a tool")
    assert search.search_notes(index, "osprey").total == 0
    assert index.refresh() == 1
    assert paths(search.search_notes(index, "osprey")) == ["External.md"]


def test_progress_is_reported_during_a_large_build(make_index: Make) -> None:
    index = make_index({f"F/N{n}.md": f"note {n}\n" for n in range(450)})
    seen: list[tuple[int, int]] = []
    search.search_notes(index, "note", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(200, 450), (400, 450), (450, 450)]
    seen.clear()
    search.search_notes(index, "note", progress=lambda done, total: seen.append((done, total)))
    assert seen == []
