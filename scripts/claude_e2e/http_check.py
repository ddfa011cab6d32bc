"""`make claude-http-check`: the pinned Claude Code CLI connects to both servers over streamable HTTP.

Starts obsidian-mcp (on a temp copy of examples/vault) and gmail-mcp (no Gmail token: it serves,
and its tools would answer auth_required) with `uv run <server> --transport http --port 0`, each
with its own token file. Then, with a temporary HOME and working directory (so neither the user's
settings nor the repository's .mcp.json take part), runs

    claude mcp add --transport http <name> http://127.0.0.1:PORT/mcp --header "Authorization: Bearer …"
    claude mcp list

and requires `✔ Connected` (or `✓ Connected`) for both. A third entry with a wrong token shows what
Claude Code makes of the servers' 401 (it must not be connected). Tokens are masked in the output.
Nothing leaves the machine: the CLI's API endpoint points at a closed local port and telemetry,
updates and error reporting are off. Not part of `make test`/CI (it needs the pinned CLI, fetched
once with npm ci, see README.md here).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import run as e2e  # noqa: E402 - the pinned CLI and the scrubbed environment of make claude-e2e

from tests.contract.harness import UV, HttpServer  # noqa: E402

CLAUDE_TIMEOUT = 60.0


def claude(args: list[str], env: dict[str, str], cwd: Path, secrets: list[str]) -> str:
    shown = " ".join(args)
    for secret in secrets:
        shown = shown.replace(secret, "****")
    e2e.say(f"$ claude {shown}")
    done = subprocess.run(
        [str(e2e.CLAUDE), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=CLAUDE_TIMEOUT, check=False
    )
    output = done.stdout + done.stderr
    for secret in secrets:
        output = output.replace(secret, "****")
    e2e.say("  " + output.strip().replace("\n", "\n  "))
    if done.returncode != 0:
        raise e2e.Failure(f"claude {args[0]} {args[1]} exited {done.returncode}")
    return output


def claude_env(tmp: Path) -> dict[str, str]:
    home = tmp / "home"
    (home / ".claude").mkdir(parents=True)
    env = e2e.scrubbed_env()
    no_proxy = ",".join(filter(None, [env.get("NO_PROXY") or env.get("no_proxy"), "127.0.0.1", "localhost"]))
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "NO_PROXY": no_proxy,
            "no_proxy": no_proxy,
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # closed: nothing reaches a real API
            "ANTHROPIC_API_KEY": "fake-key",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "MCP_TIMEOUT": "30000",
        }
    )
    return env


def start(command: list[str], folder: Path, env: dict[str, str]) -> HttpServer:
    argv = [UV, "run", "--quiet", "--locked", *command, "--transport", "http", "--port", "0"]
    server = HttpServer(argv, command[0], folder, env)
    server.wait_until_serving()
    e2e.say(f"• {command[0]} serving {server.url}")
    return server


def check(tmp: Path) -> None:
    version = e2e.install_cli(tmp)
    vault = tmp / "vault"
    shutil.copytree(REPO / "examples" / "vault", vault)
    servers = {
        "obsidian": start(
            ["obsidian-mcp", "--vault", str(vault), "--index-dir", str(tmp / "index")], tmp / "obsidian", {}
        ),
        "gmail": start(["gmail-mcp"], tmp / "gmail", {"GMAIL_MCP_TOKEN_FILE": str(tmp / "no-such-token.json")}),
    }
    try:
        env = claude_env(tmp)
        cwd = tmp / "project"
        cwd.mkdir()
        tokens = [server.token for server in servers.values()]
        for name, server in servers.items():
            header = f"Authorization: Bearer {server.token}"
            claude(["mcp", "add", "--transport", "http", name, server.url, "--header", header], env, cwd, tokens)
        wrong = ["mcp", "add", "--transport", "http", "obsidian-wrong-token", servers["obsidian"].url]
        claude([*wrong, "--header", "Authorization: Bearer not-the-token"], env, cwd, tokens)
        listed = claude(["mcp", "list"], env, cwd, tokens)
    finally:
        codes = {name: server.stop() for name, server in servers.items()}
    status = {line.split(":", 1)[0].strip(): line for line in listed.splitlines() if ": http" in line}
    connected = {name: ("✔ Connected" in line or "✓ Connected" in line) for name, line in status.items()}
    problems = [
        f"{name} is not connected: {status.get(name, '(not listed)')}" for name in servers if not connected.get(name)
    ]
    if connected.get("obsidian-wrong-token"):
        problems.append("the entry with a wrong token connected")
    problems += [f"{name} exited {code} on SIGTERM" for name, code in codes.items() if code != 0]
    for name, server in servers.items():
        server.assert_clean()  # nothing on stdout, the token in no log line
        refused = [r for r in server.records() if r["message"] == "http request refused"]
        e2e.say(
            f"• {name}: {len(refused)} request(s) refused with 401 (reasons: {sorted({r['reason'] for r in refused})})"
        )
    if problems:
        raise e2e.Failure("\n  - ".join(["claude mcp list did not show what it should:", *problems]))
    e2e.say(f"\nPASS: Claude Code {version} lists both servers as connected over streamable HTTP with a bearer token.")


def main() -> int:
    started = time.monotonic()
    e2e._deadline = started + e2e.BUDGET
    tmp = Path(tempfile.mkdtemp(prefix="claude-http-"))
    try:
        check(tmp)
    except (e2e.Failure, AssertionError, TimeoutError, RuntimeError, subprocess.TimeoutExpired) as exc:
        e2e.say(f"\nFAIL: {exc}")
        return 1
    finally:
        if os.environ.get("CLAUDE_E2E_KEEP") == "1":
            e2e.say(f"(kept {tmp})")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
        e2e.say(f"(took {time.monotonic() - started:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
