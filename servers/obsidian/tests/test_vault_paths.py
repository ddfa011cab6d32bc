"""Path safety: hostile paths are refused for every operation, nothing outside the vault is touched."""

from __future__ import annotations

import os
import shutil
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from obsidian_mcp.vault import notes
from obsidian_mcp.vault.errors import NoteNotFound, PathRefused, VaultUnavailable
from obsidian_mcp.vault.paths import Vault
from obsidian_mcp.vault.storage import PathLocks

HOSTILE: list[tuple[str, str]] = [
    # absolute, drive and UNC paths
    ("/etc/passwd", "outside_vault"),
    ("/etc/passwd.md", "outside_vault"),
    ("\\etc\\passwd", "outside_vault"),
    ("C:\\Windows\\win.ini", "outside_vault"),
    ("C:/Windows/notes", "outside_vault"),
    ("c:notes", "outside_vault"),
    ("\\\\server\\share\\note", "outside_vault"),
    ("//server/share/note", "outside_vault"),
    ("\\\\?\\C:\\note", "outside_vault"),
    # parent directories in every spelling
    ("..", "outside_vault"),
    ("../x", "outside_vault"),
    ("../../../../etc/passwd", "outside_vault"),
    ("a/../../x", "outside_vault"),
    ("folder/../Note", "outside_vault"),
    ("..\\x", "outside_vault"),
    ("a\\..\\..\\x", "outside_vault"),
    ("../vault-evil/x", "outside_vault"),
    ("../outside/secret.md", "outside_vault"),
    ("folder/../../outside/secret", "outside_vault"),
    # hidden components (and names that only look like `..`)
    (".obsidian/app.json", "hidden_path"),
    (".obsidian/secret", "hidden_path"),
    (".git/config", "hidden_path"),
    (".trash/secret", "hidden_path"),
    (".x/secret.md", "hidden_path"),
    ("folder/.hidden/b", "hidden_path"),
    (".env", "hidden_path"),
    ("...", "hidden_path"),
    ("..%2f..%2fetc/passwd", "hidden_path"),
    ("to-hidden/secret", "hidden_path"),
    # malformed
    ("", "invalid_path"),
    ("   ", "invalid_path"),
    ("a\x00b", "invalid_path"),
    ("a\nb", "invalid_path"),
    ("a\rb", "invalid_path"),
    ("\x1b[31mred", "invalid_path"),
    ("tab\there", "invalid_path"),
    ("del\x7f", "invalid_path"),
    ("line\u2028sep", "invalid_path"),
    ("x" * 300, "invalid_path"),
    ("a" * 253, "invalid_path"),  # 256 bytes once `.md` is added
    ("é" * 130, "invalid_path"),  # 260 UTF-8 bytes in 130 characters
    ("/".join(["d" * 200] * 25), "invalid_path"),
    ("x" * 100_000, "invalid_path"),
    ("image.png", "invalid_path"),
    ("Note.MD", "invalid_path"),
    ("folder/", "invalid_path"),
    ("folder/.", "invalid_path"),
    ("folder", "invalid_path"),  # a folder named like the note
    # symlinks that leave the vault
    ("link-out", "symlink"),
    ("link-out.md", "symlink"),
    ("linkdir-out/secret.md", "symlink"),
    ("linkdir-out/missing", "symlink"),
    ("linkdir-out/new/deeper", "symlink"),
    ("evil-rel/x", "symlink"),
]


def _inside(path: str, root: Path) -> bool:
    real = Path(os.path.realpath(path))
    return real == root or real.is_relative_to(root)


def _no_absolute(message: str, tmp_path: Path) -> None:
    assert str(tmp_path) not in message
    assert os.path.realpath(tmp_path) not in message


def test_corpus_is_big_enough() -> None:
    assert len(HOSTILE) >= 30


@pytest.mark.parametrize(("user_path", "reason"), HOSTILE)
def test_resolve_refuses(
    vault: Vault,
    user_path: str,
    reason: str,
    tmp_path: Path,
    vault_outside_state: Callable[[], Any],
    vault_access_log: list[str],
) -> None:
    if user_path == "folder":  # a folder is a folder only once `.md` is appended... see below
        (vault.root / "folder.md").mkdir()
    before = vault_outside_state()
    vault_access_log.clear()
    for kwargs in ({}, {"must_exist": False, "for_write": True}):
        with pytest.raises(PathRefused) as caught:
            vault.resolve(user_path, **kwargs)
        assert caught.value.reason == reason
        _no_absolute(str(caught.value), tmp_path)
    accessed = list(vault_access_log)
    assert vault_outside_state() == before
    assert all(_inside(p, vault.root) for p in accessed), accessed


def _operations(vault: Vault, locks: PathLocks) -> list[Callable[[str], object]]:
    return [
        lambda p: notes.read_note(vault, p),
        lambda p: notes.write_note(vault, locks, p, "pwned", mode="create"),
        lambda p: notes.write_note(vault, locks, p, "pwned", mode="overwrite"),
        lambda p: notes.append_to_note(vault, locks, p, "pwned", create_if_missing=True),
        lambda p: notes.append_to_note(vault, locks, p, "pwned", heading="Note"),
        lambda p: notes.replace_section(vault, locks, p, "Note", "pwned"),
        lambda p: notes.update_frontmatter(vault, locks, p, {"pwned": True}, []),
        lambda p: notes.delete_note(vault, locks, p),
    ]


@pytest.mark.parametrize(("user_path", "reason"), HOSTILE)
def test_every_note_operation_refuses(
    vault: Vault,
    vault_locks: PathLocks,
    user_path: str,
    reason: str,
    tmp_path: Path,
    vault_tree_state: Callable[[], Any],
    vault_access_log: list[str],
) -> None:
    if user_path == "folder":
        (vault.root / "folder.md").mkdir()
    before = vault_tree_state()
    vault_access_log.clear()
    for operation in _operations(vault, vault_locks):
        with pytest.raises(PathRefused) as caught:
            operation(user_path)
        assert caught.value.reason == reason
        _no_absolute(str(caught.value), tmp_path)
    accessed = list(vault_access_log)
    assert vault_tree_state() == before  # nothing changed, inside or outside the vault
    assert all(_inside(p, vault.root) for p in accessed), accessed


def test_symlink_inside_the_vault_is_allowed(vault: Vault, vault_locks: PathLocks) -> None:
    note = vault.resolve("alias")
    assert note.rel == "alias.md"
    assert note.abs == vault.root / "folder" / "Sub.md"
    assert vault.resolve("aliasdir/Sub").rel == "aliasdir/Sub.md"
    assert notes.read_note(vault, "alias").content == "sub\n"
    notes.append_to_note(vault, vault_locks, "aliasdir/Sub", "more\n")
    assert (vault.root / "folder" / "Sub.md").read_text() == "sub\nmore\n"
    assert (vault.root / "alias.md").is_symlink()  # the link was not replaced by a file


def test_normalisation(vault: Vault) -> None:
    assert vault.resolve("folder\\Sub").rel == "folder/Sub.md"
    assert vault.resolve("./folder//Sub.md").rel == "folder/Sub.md"
    assert vault.resolve("Note.md").abs == vault.root / "Note.md"
    new = vault.resolve("Meeting 2024.01.05", must_exist=False)
    assert new.rel == "Meeting 2024.01.05.md"
    assert not new.exists
    assert vault.resolve("a" * 252, must_exist=False).rel == "a" * 252 + ".md"  # exactly 255 bytes


def test_percent_sequences_are_literal_names(vault: Vault, vault_locks: PathLocks) -> None:
    with pytest.raises(NoteNotFound):
        vault.resolve("%2e%2e/x")
    result = notes.write_note(vault, vault_locks, "%2e%2e/x", "literal")
    assert result.path == "%2e%2e/x.md"
    assert (vault.root / "%2e%2e" / "x.md").read_text() == "literal"


def test_missing_note_answers_the_same_whatever_is_outside(vault: Vault) -> None:
    with pytest.raises(NoteNotFound) as first:
        vault.resolve("secret")
    (vault.root.parent / "secret.md").write_text("next to the vault")
    with pytest.raises(NoteNotFound) as second:
        vault.resolve("secret")
    assert str(first.value) == str(second.value) == "note not found: secret.md"


@pytest.mark.parametrize(("stored_form", "asked_form"), [("NFD", "NFC"), ("NFC", "NFD")])
def test_unicode_normalisation_lookup(vault: Vault, vault_locks: PathLocks, stored_form: str, asked_form: str) -> None:
    folder = unicodedata.normalize(stored_form, "Économie")  # type: ignore[arg-type]
    name = unicodedata.normalize(stored_form, "Café crème.md")  # type: ignore[arg-type]
    (vault.root / folder).mkdir()
    (vault.root / folder / name).write_text("café\n", encoding="utf-8")
    asked = unicodedata.normalize(asked_form, "Économie/Café crème")  # type: ignore[arg-type]
    note = vault.resolve(asked)
    assert note.rel == f"{folder}/{name}"  # the spelling on disk
    assert notes.read_note(vault, asked).content == "café\n"
    notes.write_note(vault, vault_locks, asked, "updated\n", mode="overwrite")
    assert os.listdir(vault.root / folder) == [name]  # no second file in the other form
    assert (vault.root / folder / name).read_text(encoding="utf-8") == "updated\n"


def test_lookup_is_case_sensitive(vault: Vault) -> None:
    with pytest.raises(NoteNotFound):
        vault.resolve("note")


def test_file_in_the_middle_of_a_path(vault: Vault) -> None:
    with pytest.raises(NoteNotFound):
        vault.resolve("Note.md/child")
    with pytest.raises(PathRefused) as caught:
        vault.resolve("Note.md/child", must_exist=False, for_write=True)
    assert caught.value.reason == "invalid_path"


def test_resolve_folder(vault: Vault) -> None:
    assert vault.resolve_folder("") == ("", vault.root)
    assert vault.resolve_folder("/") == ("", vault.root)
    assert vault.resolve_folder("folder/") == ("folder", vault.root / "folder")
    assert vault.resolve_folder("aliasdir") == ("aliasdir", vault.root / "folder")
    for missing in ("nope", "Note.md"):
        with pytest.raises(NoteNotFound) as caught:
            vault.resolve_folder(missing)
        assert caught.value.resource == "folder"
    for hostile, reason in [("..", "outside_vault"), (".obsidian", "hidden_path"), ("linkdir-out", "symlink")]:
        with pytest.raises(PathRefused) as refused:
            vault.resolve_folder(hostile)
        assert refused.value.reason == reason


def test_iter_notes(vault: Vault) -> None:
    (vault.root / "folder" / "deep").mkdir()
    (vault.root / "folder" / "deep" / "Z.md").write_text("z")
    (vault.root / "folder" / "picture.png").write_bytes(b"png")
    (vault.root / "folder" / ".Sub.md.0123abcd.obsidian-mcp.tmp").write_text("temp")
    (vault.root / "folder" / ".hidden.md").write_text("hidden")
    os.symlink(vault.root / "folder", vault.root / "folder" / "loop")  # must not recurse forever
    listed = [info.rel for info in vault.iter_notes()]
    assert listed == sorted(listed)
    assert listed == [
        "Note.md",
        "alias.md",
        "aliasdir/Sub.md",
        "aliasdir/deep/Z.md",
        "folder/Sub.md",
        "folder/deep/Z.md",
    ]
    assert [info.rel for info in vault.iter_notes("folder", recursive=False)] == ["folder/Sub.md"]
    first = next(vault.iter_notes())
    assert first.size == len("# Note\n\nHello\n")
    assert first.mtime == os.stat(vault.root / "Note.md").st_mtime


def test_vault_removed_after_start(vault_root: Path, vault_locks: PathLocks) -> None:
    vault = Vault(vault_root)
    shutil.rmtree(vault_root)
    with pytest.raises(VaultUnavailable):
        vault.resolve("Note")
    with pytest.raises(VaultUnavailable):
        notes.read_note(vault, "Note")
    with pytest.raises(VaultUnavailable):
        notes.list_notes(vault)
    with pytest.raises(VaultUnavailable):
        notes.write_note(vault, vault_locks, "New", "x")


def test_vault_root_replaced_by_a_file(vault_root: Path) -> None:
    vault = Vault(vault_root)
    shutil.rmtree(vault_root)
    vault_root.write_text("not a folder")
    with pytest.raises(VaultUnavailable):
        notes.list_notes(vault)


def test_symlink_loop(vault: Vault, vault_locks: PathLocks) -> None:
    os.symlink("loop.md", vault.root / "loop.md")
    with pytest.raises(NoteNotFound):
        notes.read_note(vault, "loop")
    with pytest.raises(PathRefused) as caught:
        notes.write_note(vault, vault_locks, "loop", "x", mode="overwrite")
    assert caught.value.reason == "symlink"
