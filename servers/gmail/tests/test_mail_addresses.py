"""gmail_mcp.mail.compose.parse_addresses: recipient validation, header injection impossible."""

from __future__ import annotations

import pytest
from gmail_mcp.mail.compose import parse_addresses
from gmail_mcp.mail.errors import InvalidField
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, []),
        ("", []),
        ("a@example.com", ["a@example.com"]),
        ("  Alice Example <alice@example.com> ", ["Alice Example <alice@example.com>"]),
        ('"Doe, John" <jd@example.com>, x@y.org', ['"Doe, John" <jd@example.com>', "x@y.org"]),
        ("a@example.com; b@example.com,", ["a@example.com", "b@example.com"]),
        (
            ["a@example.com, b@example.com", "Zoë <z@example.com>"],
            ["a@example.com", "b@example.com", "Zoë <z@example.com>"],
        ),
        ("<bare@example.com>", ["bare@example.com"]),
        ("first.last+tag@sub.example.co.uk", ["first.last+tag@sub.example.co.uk"]),
        ("Jörg <j@bücher.example>", ["Jörg <j@xn--bcher-kva.example>"]),
        ('"Quote \\" inside" <q@example.com>', ['"Quote \\" inside" <q@example.com>']),
        ("a@example.com, A@EXAMPLE.com", ["a@example.com"]),
    ],
)
def test_valid(value: str | list[str] | None, expected: list[str]) -> None:
    assert parse_addresses(value, "to") == expected


@pytest.mark.parametrize(
    "value",
    [
        "a@b.c\r\nBcc: x@y.z",
        "a@b.c\nBcc: x@y.z",
        "Name\r\n <a@b.cd>",
        "a@b.c\x00",
        "a@example.com\u2028Bcc: x@y.z",
        "plainaddress",
        "a@b",
        "@example.com",
        "a@",
        "a@@example.com",
        "a b@example.com",
        "a@exa mple.com",
        "a..b@example.com",
        ".a@example.com",
        "a@-example.com",
        "<a@example.com",
        "Name <a@example.com> trailing",
        'Unbalanced "quote <a@example.com>',
        "Name <a@example.com",
        "a@example.com (comment)",
        "Group: a@example.com;",
        "jörg@example.com",
        "x" * 65 + "@example.com",
        ["ok@example.com", 5],
        42,
    ],
)
def test_invalid(value: object) -> None:
    with pytest.raises(InvalidField) as caught:
        parse_addresses(value, "cc")  # type: ignore[arg-type]
    assert caught.value.field == "cc"
    assert caught.value.reason == "invalid_address"
    assert str(caught.value).startswith("cc: ")
    assert "\r" not in str(caught.value) and "\n" not in str(caught.value)


def test_error_names_the_bad_entry_truncated() -> None:
    bad = "good@example.com, " + "z" * 500 + "@"
    with pytest.raises(InvalidField) as caught:
        parse_addresses(bad, "to")
    message = str(caught.value)
    assert "zzzz" in message and "good@example.com" not in message
    assert len(message) <= len("to: invalid e-mail address ") + 100


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('ab@.<>", ;\\\r\n\x00é:()-_')), max_size=40))
def test_arbitrary_input_is_accepted_safely_or_rejected(value: str) -> None:
    try:
        result = parse_addresses(value, "to")
    except InvalidField as exc:
        assert exc.field == "to"
        return
    for address in result:
        assert not any(ch in address for ch in "\r\n\x00")
        assert address.count("@") >= 1
