"""Several vaults in one server: how `--vault NAME=PATH`, `OBSIDIAN_MCP_VAULTS`, `--default-vault`
and `--exclude NAME:PATTERN` are read, and every configuration refused before anything starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from obsidian_mcp.vault.setup import VaultSetupError, parse_setup, split_env


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    made = {}
    for name in ("Work", "Personal", "Archive"):
        (tmp_path / name).mkdir()
        made[name] = tmp_path / name
    return made


def test_a_bare_path_is_one_vault_named_after_its_folder(folders: dict[str, Path]) -> None:
    setup = parse_setup([str(folders["Work"])])
    assert setup.names == ("Work",)
    assert setup.default == "Work"
    assert setup.spec("Work").root == folders["Work"].resolve()


def test_named_vaults_keep_their_order_and_the_first_is_the_default(folders: dict[str, Path]) -> None:
    setup = parse_setup([f"work={folders['Work']}", f"home={folders['Personal']}"])
    assert setup.names == ("work", "home")
    assert setup.default == "work"
    assert setup.spec("home").root == folders["Personal"].resolve()


def test_default_vault_chooses_another(folders: dict[str, Path]) -> None:
    setup = parse_setup([f"work={folders['Work']}", f"home={folders['Personal']}"], default="home")
    assert setup.default == "home"


def test_a_folder_whose_name_holds_an_equals_sign_still_works_bare(tmp_path: Path) -> None:
    odd = tmp_path / "a=b"
    odd.mkdir()
    setup = parse_setup([str(odd)])
    assert setup.names == ("a=b",)


def test_a_tilde_path_is_expanded(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(folders["Work"].parent))
    setup = parse_setup(["w=~/Work"])
    assert setup.spec("w").root == folders["Work"].resolve()


def test_the_environment_separates_entries_with_the_path_separator() -> None:
    assert split_env(f"a=/x{os.pathsep}b=/y{os.pathsep}") == ("a=/x", "b=/y")
    assert split_env("") == ()
    assert split_env(None) == ()


def test_exclusions_apply_per_vault_or_to_every_vault(folders: dict[str, Path]) -> None:
    setup = parse_setup(
        [f"work={folders['Work']}", f"home={folders['Personal']}"],
        exclude=["home:Journal/", "*.secret.md", "nowhere:x/"],
    )
    home, work = setup.spec("home").exclusions, setup.spec("work").exclusions
    assert home.excludes("Journal/today.md")
    assert not work.excludes("Journal/today.md")
    assert home.excludes("a.secret.md") and work.excludes("a.secret.md")
    # `nowhere` is no vault's name, so the whole entry is a pattern for every vault (a folder
    # literally named "nowhere:x").
    assert work.excludes("nowhere:x/n.md")


@pytest.mark.parametrize(
    ("entries", "default", "says"),
    [
        ([], None, "no vault given"),
        (["w=/does/not/exist"], None, "does not exist"),
        (["note={Work}"], None, "reserved"),
        (["*={Work}"], None, "reserved"),
        (["a:b={Work}"], None, "may not contain"),
        (["a\\b={Work}"], None, "does not exist"),  # not a name, so the whole entry is a path
        (["{Work}", "work={Personal}"], None, "two vaults are named 'work'"),
        (["x={Work}", "x={Personal}"], None, "two vaults are named 'x'"),
        (["x={Work}", "y={Work}"], None, "overlap"),
        (["x={Work}", "y={Work}/Inner"], None, "overlap"),
        (["x={Work}"], "y", "--default-vault 'y' is not one of the vaults: x"),
        ([" x ={Work}"], None, None),  # spaces around a name are trimmed, not refused
    ],
)
def test_a_bad_configuration_is_refused_with_what_to_change(
    folders: dict[str, Path], entries: list[str], default: str | None, says: str | None
) -> None:
    (folders["Work"] / "Inner").mkdir()
    filled = [e.format(Work=folders["Work"], Personal=folders["Personal"]) for e in entries]
    if says is None:
        assert parse_setup(filled, default=default).names == ("x",)
        return
    with pytest.raises(VaultSetupError) as raised:
        parse_setup(filled, default=default)
    assert says in str(raised.value)


def test_an_invalid_pattern_names_its_vault(folders: dict[str, Path]) -> None:
    with pytest.raises(VaultSetupError, match="vault 'w'"):
        parse_setup([f"w={folders['Work']}"], exclude=["w:a/**/b/[z-a]"])


@pytest.mark.parametrize(("folder", "name"), [("Note", "Note-vault"), ("a:b", "a-b"), ("*", "*-vault")])
def test_a_bare_path_whose_folder_name_cannot_name_a_vault_still_starts(tmp_path: Path, folder: str, name: str) -> None:
    (tmp_path / folder).mkdir()
    assert parse_setup([str(tmp_path / folder)]).names == (name,)
