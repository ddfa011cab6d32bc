"""Arguments for fuzzing a tool: valid ones from its input schema, and every way of getting them wrong."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from tests.contract.checks import assert_no_leak
from tests.contract.harness import LEAK_PATTERNS

HOSTILE_TEXT = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "a\x00b",
        "../" * 20,
        "/etc/passwd",
        "C:\\Windows",
        ".obsidian/app.json",
        "\ud7ff\ufeff",
        "x" * 70_000,
        "😀" * 1000,
        "NEAR(a b)",
        '"unbalanced',
        "((((",
        "*",
        "-",
        "%s%n",
        "{{date}}",
        "\u202e",
        "\r\n",
    ]
)
JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=50),
    HOSTILE_TEXT,
)
ANY_JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)


def arguments(schema: dict[str, Any], hints: dict[str, list[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Valid arguments, boundary values, wrong types, missing and extra keys, huge and hostile strings.

    `hints` are realistic values per argument name (existing notes, message ids), so that valid
    calls also reach deep into the tools instead of stopping at not_found.
    """
    names = sorted(schema.get("properties", {}))
    realistic = from_schema(schema).flatmap(
        lambda args: st.fixed_dictionaries(
            {k: st.sampled_from(hints[k]) if k in hints else st.just(v) for k, v in args.items()}
        )
    )
    valid = st.one_of(from_schema(schema), realistic, realistic)
    mutated = valid.flatmap(
        lambda args: st.fixed_dictionaries(
            {}, optional={name: st.one_of(ANY_JSON, st.just(args.get(name))) for name in [*names, "unexpected"]}
        )
    )
    return st.one_of(valid, mutated, st.dictionaries(st.sampled_from([*names, "zz"]), ANY_JSON, max_size=6))


def check_result(reply: dict[str, Any], secrets: list[str], forbidden_paths: list[str]) -> dict[str, Any]:
    """One tools/call answer is contract-shaped and leaks nothing; returns its structured content."""
    from obsidian_mcp.models import ERROR_CODES

    assert "result" in reply, f"a JSON-RPC error for a tools/call: {reply}"
    result = reply["result"]
    text = result["content"][0]["text"]
    payload = json.loads(text)
    if result.get("isError"):
        assert "structuredContent" not in result, "an error result must not carry structuredContent"
    else:
        assert result["structuredContent"] == payload
    for secret in secrets:
        assert secret not in text
    if result.get("isError"):
        assert set(payload) == {"error", "message", "details"}, payload
        assert payload["error"] in ERROR_CODES
        assert isinstance(payload["details"]["retryable"], bool) and payload["details"]["request_id"]
        assert_no_leak(payload["message"])
        assert not LEAK_PATTERNS.search(json.dumps(payload["details"]))
        for path in forbidden_paths:
            assert path not in text
    else:
        assert "error" not in payload
    return dict(payload)
