"""Both servers define the same taxonomy and the same error shape (their models.py are duplicates by design)."""

from __future__ import annotations

import gmail_mcp.models as gmail_models
import obsidian_mcp.models as obsidian_models
import pytest

from tests.contract.checks import spec

pytestmark = pytest.mark.transport_independent(reason="compares source files and schemas, no server")

EIGHT = {
    "auth_required",
    "not_found",
    "rate_limited",
    "send_failed",
    "permission_denied",
    "parse_error",
    "mcp_unavailable",
    "internal_error",
}


def test_both_servers_define_exactly_the_eight_codes() -> None:
    assert set(gmail_models.ERROR_CODES) == EIGHT
    assert set(obsidian_models.ERROR_CODES) == EIGHT
    assert len(gmail_models.ERROR_CODES) == 8


def test_both_servers_define_the_same_error_shape_and_details_conventions() -> None:
    assert gmail_models.MCPError.model_json_schema() == obsidian_models.MCPError.model_json_schema()
    assert gmail_models.REQUIRED_DETAIL_KEYS == obsidian_models.REQUIRED_DETAIL_KEYS
    assert gmail_models.RETRYABLE_CODES == obsidian_models.RETRYABLE_CODES


def test_the_spec_error_schema_is_the_model_schema() -> None:
    for server in ("gmail-mcp", "obsidian-mcp"):
        assert spec(server)["$defs"]["MCPError"] == obsidian_models.MCPError.model_json_schema()
        for tool in spec(server)["tools"]:
            codes = tool["errorSchema"]["allOf"][1]["properties"]["error"]["enum"]
            assert set(codes) <= EIGHT and "internal_error" in codes, tool["name"]


def test_the_two_models_files_are_the_same_file() -> None:
    # They are duplicated on purpose (the servers share no code); any drift is a bug in one of them.
    from tests.contract.harness import REPO

    gmail = (REPO / "servers/gmail/src/gmail_mcp/models.py").read_bytes()
    obsidian = (REPO / "servers/obsidian/src/obsidian_mcp/models.py").read_bytes()
    assert gmail == obsidian


def test_the_two_runtime_packages_are_the_same_files() -> None:
    # The contract's machinery (call path, wire form, log line, stdio guard, SIGTERM) is duplicated
    # the same way; relative imports keep the copies byte-identical.
    from tests.contract.harness import REPO

    gmail = REPO / "servers/gmail/src/gmail_mcp/runtime"
    obsidian = REPO / "servers/obsidian/src/obsidian_mcp/runtime"
    names = sorted(p.name for p in gmail.glob("*.py"))
    assert names == sorted(p.name for p in obsidian.glob("*.py")) and "server.py" in names
    for name in names:
        assert (gmail / name).read_bytes() == (obsidian / name).read_bytes(), name


def test_the_specs_stand_alone() -> None:
    # A clone must hold every rule it is built to: no spec, README or docstring points outside the repository
    # (version 2's specs named ../shared/interface.md, which a clone does not have).
    import re

    from tests.contract.harness import REPO

    outside = re.compile(r"\.\./shared|\]\(\.\./\.\.|`\.\./[A-Za-z]")
    files = [*REPO.glob("specs/*.md"), REPO / "README.md", *REPO.glob("servers/*/src/**/*.py")]
    offenders = [str(f.relative_to(REPO)) for f in files if outside.search(f.read_text(encoding="utf-8"))]
    assert offenders == []
    assert (REPO / "specs/interface.md").is_file() and (REPO / "specs/adr-0008.md").is_file()
