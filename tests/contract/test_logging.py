"""stderr carries JSON lines only, even for Python warnings and crashes outside any tool call."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.transport_independent(reason="configures logging in a bare interpreter, no server")

SCRIPT = """
import threading, warnings
from {package}.runtime.logs import configure_logging
configure_logging("{service}", "INFO")
warnings.warn("a library complains")
thread = threading.Thread(target=lambda: 1 / 0)
thread.start(); thread.join()
raise RuntimeError("boom at start-up")
"""


@pytest.mark.parametrize(("package", "service"), [("obsidian_mcp", "obsidian-mcp"), ("gmail_mcp", "gmail-mcp")])
def test_warnings_and_unhandled_exceptions_are_json_lines(package: str, service: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(package=package, service=service)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    records = [json.loads(line) for line in proc.stderr.splitlines() if line.strip()]
    assert all(r["service"] == service for r in records)
    messages = [r["message"] for r in records]
    assert any("a library complains" in m for m in messages)
    assert "unhandled exception in a thread" in messages and "unhandled exception" in messages
    assert any("ZeroDivisionError" in r.get("exception", "") for r in records)
    assert any("boom at start-up" in r.get("exception", "") for r in records)
