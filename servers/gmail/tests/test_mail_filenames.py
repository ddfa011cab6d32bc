"""gmail_mcp.mail.filenames: safe local names for untrusted attachment names."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest
from gmail_mcp.mail.filenames import reserve_unique_path, safe_filename, unique_path


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("..\\x", "x"),
        ("C:\\Users\\me\\evil.exe", "evil.exe"),
        ("/absolute/path/file.txt", "file.txt"),
        (".bashrc", "bashrc"),
        ("...hidden", "hidden"),
        ("\x00", "attachment"),
        ("a\x00b\x1fc.txt", "abc.txt"),
        ("", "attachment"),
        ("   ", "attachment"),
        (".", "attachment"),
        ("..", "attachment"),
        ("dir/", "attachment"),
        (None, "attachment"),
        ("invoice\u202egpj.exe", "invoicegpj.exe"),
        ('what?<>:"|*.txt', "what_______.txt"),
        ("CON.txt", "_CON.txt"),
        ("trailing. ", "trailing"),
    ],
)
def test_safe_filename(name: str | None, expected: str) -> None:
    assert safe_filename(name) == expected


def test_fallback_is_used_and_sanitised() -> None:
    assert safe_filename("", fallback="message.eml") == "message.eml"
    assert safe_filename("..", fallback="../x.bin") == "x.bin"
    assert safe_filename("..", fallback="") == "attachment"


def test_nfc_normalisation() -> None:
    decomposed = unicodedata.normalize("NFD", "Grüße.txt")
    assert safe_filename(decomposed) == unicodedata.normalize("NFC", "Grüße.txt")


@pytest.mark.parametrize("stem", ["a" * 500, "日本" * 250, "é" * 300])
def test_long_names_are_cut_to_200_bytes_keeping_the_extension(stem: str) -> None:
    result = safe_filename(stem + ".pdf")
    assert len(result.encode("utf-8")) <= 200
    assert result.endswith(".pdf")
    assert stem.startswith(result[: -len(".pdf")])


def test_long_extension_is_not_kept_whole() -> None:
    result = safe_filename("x." + "y" * 500)
    assert 0 < len(result.encode("utf-8")) <= 200


def test_unique_path_suffixes(tmp_path: Path) -> None:
    assert unique_path(tmp_path, "report.pdf") == tmp_path / "report.pdf"
    (tmp_path / "report.pdf").touch()
    assert unique_path(tmp_path, "report.pdf") == tmp_path / "report (1).pdf"
    (tmp_path / "report (1).pdf").touch()
    assert unique_path(tmp_path, "report.pdf") == tmp_path / "report (2).pdf"
    (tmp_path / "archive.tar.gz").touch()
    assert unique_path(tmp_path, "archive.tar.gz") == tmp_path / "archive (1).tar.gz"
    (tmp_path / "README").touch()
    assert unique_path(tmp_path, "README") == tmp_path / "README (1)"


def test_unique_path_treats_dangling_symlink_as_taken(tmp_path: Path) -> None:
    (tmp_path / "link.txt").symlink_to(tmp_path / "nowhere")
    assert unique_path(tmp_path, "link.txt") == tmp_path / "link (1).txt"


def test_reserve_unique_path_claims_the_name(tmp_path: Path) -> None:
    first = reserve_unique_path(tmp_path, "a.txt")
    second = reserve_unique_path(tmp_path, "a.txt")
    third = reserve_unique_path(tmp_path, "a.txt")
    assert [first.name, second.name, third.name] == ["a.txt", "a (1).txt", "a (2).txt"]
    assert first.exists() and first.stat().st_size == 0
    if os.name == "posix":
        assert first.stat().st_mode & 0o777 == 0o600


def test_reserve_does_not_follow_planted_symlink(tmp_path: Path) -> None:
    target = tmp_path / "target"
    (tmp_path / "x.txt").symlink_to(target)
    assert reserve_unique_path(tmp_path, "x.txt") == tmp_path / "x (1).txt"
    assert not target.exists()


@pytest.mark.parametrize("bad", ["", ".", "..", "a/b", "a\\b", "a\x00"])
def test_unique_path_refuses_non_plain_names(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError):
        unique_path(tmp_path, bad)
    with pytest.raises(ValueError):
        reserve_unique_path(tmp_path, bad)
