"""`obsidian-mcp --help` and `http-token` never import the MCP SDK (~1 s) nor numpy: the serving command
imports the SDK only after it has started loading a restarted index's stored vectors (`cli`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
from click.testing import CliRunner
from obsidian_mcp.cli import main
result = CliRunner().invoke(main, [{args}])
assert result.exit_code == 0, result.output
print(result.output)
heavy = sorted(m for m in ("mcp", "mcp.server.mcpserver", "numpy", "obsidian_mcp.server") if m in sys.modules)
print("HEAVY", heavy)
"""


@pytest.mark.parametrize("args", ["'--help'", "'http-token', '--help'"])
def test_help_imports_neither_the_sdk_nor_numpy(args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Usage:" in done.stdout
    assert "HEAVY []" in done.stdout
