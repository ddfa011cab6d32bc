"""`make claude-e2e`: prove that Claude Code hands the servers' typed errors, and their resources, to the model intact.

Runs the real Claude Code CLI (pinned in package-lock.json) headless from the repository root,
with the project's `.mcp.json`, against a scripted fake of the Messages API (fake_messages_api.py).
The fake plays the model: it calls obsidian `read_note` three times (a note that exists, `../secret`,
a missing note) and gmail `list_labels` once (no token), then Claude Code's own resource tools
(`ListMcpResourcesTool`, `ReadMcpResourceTool`) on both servers, then ends the turn. Each later request
carries the `tool_result` blocks exactly as Claude Code would show them to a model; this script
reads them from the fake's request log, prints them, checks them against the error contract and
compares each with the server's own answer to the same call (or resources/list, resources/read),
made directly over stdio.

Two more sessions (guard_case.py) are the send guard: gmail-mcp talks to the in-repo Gmail emulator, a
hostile mail tells the model to forward it to a stranger, the model calls `forward_email`, and an
`Elicitation` hook in Claude Code's settings records and declines whatever it is asked. As shipped,
Claude Code speaks MCP 2026-07-28 with the server, which asks through `InputRequiredResult`; with
`MCP_PROTOCOL_NEGOTIATION=legacy` (2025-11-25) it asks with `elicitation/create` in the middle of the
call. Either way the hook declines, the model gets `permission_denied`/`declined`, and the emulator
must show nothing sent and no draft kept.

Nothing leaves the machine (the npm registry is only asked when node_modules is missing or stale)
and nothing is written into the repository: the vault is a temporary copy, HOME is a temporary
directory, and gmail-mcp points at a token file that does not exist (first session) or at the
emulator on 127.0.0.1 (the send-guard sessions).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import direct_call  # noqa: E402 - needs the sys.path entry above
import fake_messages_api as fake  # noqa: E402
import guard_case  # noqa: E402

PACKAGE = "@anthropic-ai/claude-code"
CLAUDE = HERE / "node_modules" / ".bin" / "claude"
PROMPT = "claude-e2e: call the MCP tools the test script asks for, then stop."
ALLOWED_TOOLS = sorted({step.tool for step in fake.SCRIPT})

# Timeouts in seconds. Every step also stops at the overall budget; a passing run took 35-75 s on a busy
# 2-CPU machine (plus a few seconds for npm ci the first time).
BUDGET = 240.0
NPM_TIMEOUT = 120.0  # only when node_modules is missing or stale
CLAUDE_TIMEOUT = 90.0  # each whole headless session
MCP_TIMEOUT_MS = 30_000  # Claude Code's limit for a server's start-up (uv run) and for each tool call
DIRECT_TIMEOUT = 30.0  # each direct reference call
_deadline = time.monotonic() + BUDGET  # main() resets it
TAIL_LINES = 40

# Variables from the caller's environment that could send Claude Code elsewhere (another API, a
# cloud provider, a logged-in account, other MCP settings) or change what the servers do.
SCRUBBED_PREFIXES = ("ANTHROPIC_", "CLAUDE", "MCP_", "OTEL_", "GMAIL_MCP_", "OBSIDIAN_", "AWS_", "GOOGLE_", "VERTEX_")
SCRUBBED = {"VIRTUAL_ENV", "ENABLE_TOOL_SEARCH", "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER"}


class Failure(Exception):
    """The end-to-end check failed; the message says why."""


@dataclass
class Observed:
    """One tool_result block as Claude Code sent it to the model."""

    step: fake.Step
    tool_use_id: str
    is_error: bool | None
    content: Any  # the block's raw `content` (a string or a list of content blocks)
    # The server's own answer to the same call (a tool) or request (a resource tool), made directly.
    direct: direct_call.ToolAnswer | direct_call.Answer | None = None

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        if isinstance(self.content, list):
            return "".join(
                str(b.get("text", "")) for b in self.content if isinstance(b, dict) and b.get("type") == "text"
            )
        return ""


def time_left(cap: float) -> float:
    """`cap` seconds, or what is left of the overall budget if that is less."""
    left = _deadline - time.monotonic()
    if left <= 1:
        raise Failure(f"the run went over its {BUDGET:.0f}s budget")
    return min(cap, left)


def say(text: str = "") -> None:
    print(text, flush=True)


def tail(text: str, lines: int = TAIL_LINES) -> str:
    kept = text.rstrip().splitlines()[-lines:]
    return "\n".join("    " + line for line in kept) or "    (empty)"


# --- the pinned CLI --------------------------------------------------------------------------


def locked_entry(lock_file: Path) -> dict[str, Any]:
    try:
        packages = json.loads(lock_file.read_text(encoding="utf-8"))["packages"]
        entry = packages[f"node_modules/{PACKAGE}"]
    except (OSError, ValueError, KeyError) as exc:
        raise Failure(f"{lock_file} does not pin {PACKAGE}: {exc!r}") from exc
    assert isinstance(entry, dict)
    return entry


def cli_version(home: Path) -> str | None:
    if not CLAUDE.exists():
        return None
    env = {**scrubbed_env(), "HOME": str(home), "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1"}
    try:
        done = subprocess.run(
            [str(CLAUDE), "--version"], capture_output=True, text=True, timeout=30, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.split()[0] if done.returncode == 0 and done.stdout.strip() else None


def installed_matches_lock(pinned: dict[str, Any], home: Path) -> bool:
    """node_modules holds exactly the locked package (npm's hidden lockfile agrees) and its binary runs."""
    try:
        hidden = json.loads((HERE / "node_modules" / ".package-lock.json").read_text(encoding="utf-8"))
        installed = hidden["packages"][f"node_modules/{PACKAGE}"]
    except (OSError, ValueError, KeyError):
        return False
    same = all(installed.get(key) == pinned.get(key) for key in ("version", "integrity"))
    return same and cli_version(home) == pinned["version"]


def install_cli(tmp: Path) -> str:
    pinned = locked_entry(HERE / "package-lock.json")
    version = str(pinned["version"])
    home = tmp / "version-home"  # `claude --version` gets a HOME of its own too
    home.mkdir()
    if installed_matches_lock(pinned, home):
        say(f"• {PACKAGE} {version} already installed (node_modules matches package-lock.json)")
        return version
    npm = shutil.which("npm")
    if npm is None:
        raise Failure("npm is not on PATH; install Node.js (npm ci needs it once to fetch the pinned CLI)")
    say(f"• npm ci in {HERE.relative_to(REPO)} ({PACKAGE} {version}) …")
    timeout = time_left(NPM_TIMEOUT)
    try:
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        raise Failure(f"npm ci did not finish within {timeout:.0f}s") from exc
    if done.returncode != 0:
        raise Failure(f"npm ci failed (exit {done.returncode}):\n{tail(done.stdout + done.stderr)}")
    found = cli_version(home)
    if found != version:
        raise Failure(
            f"after npm ci, `{CLAUDE.relative_to(REPO)} --version` gives {found!r}, not {version!r}; was the "
            "package's postinstall (it puts the native binary in place) skipped? npm output:\n"
            + tail(done.stdout + done.stderr)
        )
    return version


# --- the environment Claude Code runs in -----------------------------------------------------


def scrubbed_env() -> dict[str, str]:
    return {
        key: value for key, value in os.environ.items() if key not in SCRUBBED and not key.startswith(SCRUBBED_PREFIXES)
    }


def real_uv() -> str | None:
    """The uv binary itself (`uv run` exports it as UV); scripts/uv is a shell wrapper that reads $HOME."""
    for candidate in (os.environ.get("UV"), shutil.which("uv")):
        if not candidate or not os.access(candidate, os.X_OK):
            continue
        with open(candidate, "rb") as head:
            if head.read(2) != b"#!":
                return str(Path(candidate).resolve())
    return None


def uv_dir(uv: str, *args: str) -> str | None:
    try:
        done = subprocess.run([uv, *args], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def claude_env(
    root: Path,
    base_url: str,
    vault: Path,
    gmail: dict[str, str] | None = None,
    hooks: dict[str, Any] | None = None,
) -> dict[str, str]:
    """The environment of one session, whose HOME (and uv symlink) live under `root`. `gmail`: what gmail-mcp
    sees instead of a missing token; `hooks`: the `hooks` entry of ~/.claude/settings.json."""
    home = root / "home"
    (home / ".claude").mkdir(parents=True)
    # Approves the project's .mcp.json servers without touching the repository's own settings.
    settings: dict[str, Any] = {"enabledMcpjsonServers": ["gmail", "obsidian"]}
    if hooks:
        settings["hooks"] = hooks
    (home / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")

    env = scrubbed_env()
    uv = real_uv()
    if uv is not None:
        # .mcp.json starts the servers with a bare `uv`: put the real binary first on PATH, and keep
        # uv's cache and interpreters where they are, since HOME is about to change.
        bin_dir = root / "bin"
        bin_dir.mkdir()
        (bin_dir / "uv").symlink_to(uv)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        for var, args in (("UV_CACHE_DIR", ("cache", "dir")), ("UV_PYTHON_INSTALL_DIR", ("python", "dir"))):
            if var not in env and (found := uv_dir(uv, *args)):
                env[var] = found
    no_proxy = ",".join(filter(None, [env.get("NO_PROXY") or env.get("no_proxy"), "127.0.0.1", "localhost"]))
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "NO_PROXY": no_proxy,
            "no_proxy": no_proxy,
            # The model is the fake; the key is never checked.
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "fake-key",
            # Offline: no telemetry, error reporting, update checks or other side traffic.
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            # Connect the MCP servers before the first turn (claude -p otherwise connects them in the background).
            "MCP_CONNECTION_NONBLOCKING": "0",
            # ... and wait for them up to MCP_TIMEOUT: by default `claude -p` waited a few seconds, then began the turn
            # without a server that was slow to start (uv run on a busy machine), offering no MCP tools at all.
            "CLAUDE_CODE_MCP_STARTUP_WAIT_MS": str(MCP_TIMEOUT_MS),
            "MCP_TIMEOUT": str(MCP_TIMEOUT_MS),
            "MCP_TOOL_TIMEOUT": str(MCP_TIMEOUT_MS),
            # Send the MCP tools' schemas in `tools` instead of deferring them behind the ToolSearch tool,
            # so the scripted model can call them on its first turn.
            "ENABLE_TOOL_SEARCH": "false",
            # What the servers see (.mcp.json passes the environment on).
            "OBSIDIAN_VAULT_PATH": str(vault),
            "GMAIL_MCP_TOKEN_FILE": str(root / "gmail" / "no-such-token.json"),
            "GMAIL_MCP_API_ENDPOINT": "http://127.0.0.1:9/",
            # `uv run` in .mcp.json must not rewrite uv.lock.
            "UV_LOCKED": "1",
        }
    )
    env.update(gmail or {})
    return env


@dataclass
class CliRun:
    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str
    seconds: float


def run_claude(
    env: dict[str, str], timeout: float, allowed_tools: list[str] = ALLOWED_TOOLS, prompt: str = PROMPT
) -> CliRun:
    command = [str(CLAUDE), "-p", prompt, "--output-format", "json", "--allowedTools", ",".join(allowed_tools)]
    command.append("--no-session-persistence")
    say(f"• running from the repo root: {shlex.join([str(CLAUDE.relative_to(REPO)), *command[1:]])}")
    shown = ("HOME", "ANTHROPIC_BASE_URL", "OBSIDIAN_VAULT_PATH", "GMAIL_MCP_TOKEN_FILE", "GMAIL_MCP_API_ENDPOINT")
    say("  with " + " ".join(f"{key}={env[key]}" for key in shown))
    started = time.monotonic()
    # A session of its own, so that a timeout stops the MCP servers Claude Code started too.
    process = subprocess.Popen(
        command,
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return CliRun(None, stdout, stderr, time.monotonic() - started)
    return CliRun(process.returncode, stdout, stderr, time.monotonic() - started)


# --- reading what Claude Code sent to the model ----------------------------------------------


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def describe_log(records: list[dict[str, Any]]) -> str:
    lines = []
    for number, record in enumerate(records, 1):
        body = record.get("body")
        summary = ""
        if isinstance(body, dict):
            tools = [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]
            mcp = [t for t in tools if t.startswith("mcp__")]
            summary = (
                f"model={body.get('model')} stream={body.get('stream')} messages={len(body.get('messages') or [])} "
                f"tools={len(tools)} (mcp: {len(mcp)}) tool_results={len(fake.tool_results(body))}"
            )
        lines.append(f"    {number}. {record.get('method')} {record.get('path')} → {record.get('answer')}  {summary}")
    return "\n".join(lines) or "    (no requests reached the fake Messages API)"


def observed_results(records: list[dict[str, Any]], script: tuple[fake.Step, ...] = fake.SCRIPT) -> list[Observed]:
    main = [r["body"] for r in records if isinstance(r.get("body"), dict) and fake.is_main_conversation(r["body"])]
    if not main:
        raise Failure(
            "no request offered the MCP tools to the model (no `mcp__…` names in `tools`): the servers did not "
            "connect, or Claude Code deferred their schemas behind ToolSearch"
        )
    offered = {str(t.get("name")) for t in main[-1].get("tools") or [] if isinstance(t, dict)}
    if missing := sorted({step.tool for step in script} - offered):
        raise Failure(
            f"the model was not offered {missing}; MCP tools offered: {sorted(n for n in offered if 'mcp__' in n)}"
        )
    by_id = {str(block.get("tool_use_id")): block for block in fake.tool_results(main[-1])}
    observed = []
    for index, step in enumerate(script):
        block = by_id.get(fake.tool_use_id(index))
        if block is None:
            raise Failure(f"Claude Code never sent the model a tool_result for step {index + 1} ({step.tool})")
        is_error = block.get("is_error")
        observed.append(
            Observed(
                step, fake.tool_use_id(index), is_error if isinstance(is_error, bool) else None, block.get("content")
            )
        )
    return observed


def check(result: Observed) -> list[str]:
    """What is wrong with one tool_result, against the error contract; empty when it is right."""
    problems: list[str] = []
    if isinstance(result.content, list) and len(result.content) != 1:
        problems.append(f"expected one text block in the tool_result, got {len(result.content)} blocks")
    try:
        payload = json.loads(result.text)
    except ValueError:
        return [*problems, "the tool_result text is not JSON (was it wrapped or cut by Claude Code?)"]
    if not isinstance(payload, dict):
        return [*problems, "the tool_result JSON is not an object"]
    expect = result.step.expect
    if expect == "ok":
        if result.is_error:
            problems.append("is_error is true for a successful call")
        if "error" in payload:
            problems.append(f"a success carries an 'error' key: {payload['error']!r}")
        if payload.get("path") != result.step.arguments["path"] or not isinstance(payload.get("content"), str):
            problems.append("the note JSON lacks the note's path and content")
        return problems
    if result.is_error is not True:
        problems.append(f"is_error is {result.is_error!r}, not true")
    if set(payload) != {"error", "message", "details"}:
        problems.append(f"keys are {sorted(payload)}, not ['details', 'error', 'message']")
    if payload.get("error") != expect:
        problems.append(f"error is {payload.get('error')!r}, not {expect!r}")
    if not isinstance(payload.get("message"), str) or not payload.get("message"):
        problems.append("message is missing or empty")
    details = payload.get("details")
    if not isinstance(details, dict):
        return [*problems, "details is not an object"]
    if not isinstance(details.get("request_id"), str) or not details.get("request_id"):
        problems.append("details.request_id is missing")
    if not isinstance(details.get("retryable"), bool):
        problems.append("details.retryable is not a boolean")
    wanted: dict[str, dict[str, str | None]] = {
        "permission_denied": {"reason": "outside_vault"},
        "not_found": {"resource": "note"},
        "auth_required": {"reason": "no_token", "reauth_command": None},  # None: any non-empty string
    }
    for key, value in wanted.get(expect, {}).items():
        got = details.get(key)
        if (value is None and not (isinstance(got, str) and got)) or (value is not None and got != value):
            problems.append(f"details.{key} is {got!r}, expected {value or 'a non-empty string'!r}")
    return problems


def check_session_result(stdout: str, final_text: str = fake.FINAL_TEXT) -> list[str]:
    try:
        result = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else None
    except ValueError:
        return ["claude's --output-format json output is not JSON"]
    if not isinstance(result, dict):
        return ["claude printed no result object"]
    problems = []
    if result.get("is_error") or result.get("subtype") != "success":
        problems.append(f"the session ended with subtype={result.get('subtype')!r} is_error={result.get('is_error')!r}")
    if result.get("permission_denials"):
        problems.append(f"Claude Code denied tool calls: {result['permission_denials']}")
    if result.get("result") != final_text:
        problems.append(f"the final answer is {result.get('result')!r}, not the scripted one")
    return problems


def failure(reason: str, done: CliRun, records: list[dict[str, Any]], home: Path) -> Failure:
    """A Failure that also says what Claude Code printed, sent to the model and logged of its servers."""
    return Failure(
        f"{reason}\n"
        f"  claude exit code: {done.returncode}\n"
        f"  claude stderr (tail):\n{tail(done.stderr)}\n"
        f"  claude stdout (tail):\n{tail(done.stdout, 10)}\n"
        f"  last message Claude Code sent to the fake Messages API:\n{last_request_excerpt(records)}\n"
        f"  MCP server logs:\n{mcp_logs(home) or '    (none)'}"
    )


def mcp_logs(home: Path) -> str:
    logs = sorted((home / ".cache").glob("claude-cli-nodejs/*/mcp-logs-*/*"))
    return "\n".join(f"  {path.relative_to(home)}:\n{tail(path.read_text(errors='replace'), 15)}" for path in logs[-6:])


# --- the run ---------------------------------------------------------------------------------


def without_request_id(text: str) -> str:
    """The text with details.request_id's value blanked: it is the one field that differs between two calls."""
    try:
        payload = json.loads(text)
        request_id = payload["details"]["request_id"]
    except (ValueError, KeyError, TypeError):
        return text
    return text.replace(json.dumps(request_id), '"…"', 1) if isinstance(request_id, str) else text


def add_direct_answers(observed: list[Observed], env: dict[str, str]) -> None:
    """Make each call (or the request behind a resource tool) again straight to the server (as .mcp.json
    starts it, same environment)."""
    mcp_json = REPO / ".mcp.json"
    for result in observed:
        step = result.step
        try:
            if is_mcp_tool(step):
                server, tool = direct_call.split_tool_name(step.tool)
                result.direct = direct_call.call_tool(
                    mcp_json, server, tool, step.arguments, env, timeout=time_left(DIRECT_TIMEOUT)
                )
            else:
                method, params = resource_request(step)
                result.direct = direct_call.request(
                    mcp_json, step.arguments["server"], method, params, env, timeout=time_left(DIRECT_TIMEOUT)
                )
        except direct_call.DirectCallError as exc:
            raise Failure(f"calling {step.tool} directly failed: {exc}") from exc


def is_mcp_tool(step: fake.Step) -> bool:
    """A tool of an MCP server (`mcp__server__tool`), not one of Claude Code's own tools."""
    return step.tool.startswith("mcp__")


def resource_request(step: fake.Step) -> tuple[str, dict[str, Any]]:
    """The MCP request behind one of Claude Code's own resource tools."""
    if step.tool == "ListMcpResourcesTool":
        return "resources/list", {}
    return "resources/read", {"uri": step.arguments["uri"]}


# What the server's JSON-RPC error must be for each expected failure of a resource tool: (code, contract code).
RESOURCE_FAILURES = {
    "resource_not_found": (-32002, "not_found"),
    "resource_error": (-32603, "auth_required"),
    "no_resources": (-32603, "auth_required"),
}


def check_resource_step(result: Observed, vault: Path) -> list[str]:
    """What Claude Code's own resource tool passed on, against the server's own answer to the same request."""
    direct, step = result.direct, result.step
    if not isinstance(direct, direct_call.Answer):
        return ["no direct answer to compare with"]
    if step.expect in ("resources", "text"):
        return check_resource_success(result, direct, vault)
    error = direct.error
    if error is None:
        return [f"the server answered {str(direct.result)[:200]} instead of a JSON-RPC error"]
    problems = []
    data = error.get("data")
    if not isinstance(data, dict) or set(data) != {"error", "message", "details"}:
        return [f"the JSON-RPC error's data is not the contract object: {error}"]
    if (error.get("code"), data["error"]) != RESOURCE_FAILURES[step.expect]:
        wanted = RESOURCE_FAILURES[step.expect]
        problems.append(f"the server answered {error.get('code')} / {data['error']}, not {wanted}")
    if error.get("message") != data["message"]:
        problems.append("the JSON-RPC error's message is not the contract message")
    if step.expect == "resource_not_found":
        if f"Resource not found: {step.arguments['uri']}" not in result.text:
            problems.append("Claude Code did not say the resource was not found")
    elif step.expect == "resource_error":
        if result.is_error is not True:
            problems.append(f"is_error is {result.is_error!r}, not true")
        if result.text != error.get("message"):
            problems.append(f"the text is not the server's message {error.get('message')!r}")
        if str(data["details"].get("reauth_command")) not in result.text:
            problems.append("the re-auth command did not reach the model")
    elif not result.text.startswith("No resources found"):
        problems.append("Claude Code claimed resources the server could not list")
    return problems


def check_resource_success(result: Observed, direct: direct_call.Answer, vault: Path) -> list[str]:
    step = result.step
    if direct.result is None:
        return [f"the server answered the JSON-RPC error {direct.error}"]
    problems = ["is_error is true for a success"] if result.is_error else []
    try:
        payload = json.loads(result.text)
    except ValueError:
        return [*problems, "the tool_result text is not JSON"]
    if step.expect == "resources":
        listed = [r.get("uri") for r in payload if isinstance(r, dict)] if isinstance(payload, list) else []
        served = [r.get("uri") for r in direct.result.get("resources", [])]
        if not served or listed != served:
            problems.append(f"listed {len(listed)} resources, the server lists {len(served)} (or in another order)")
        if any(r.get("server") != step.arguments["server"] for r in payload if isinstance(r, dict)):
            problems.append("a resource is not marked with its server")
        return problems
    texts = [c.get("text") for c in payload.get("contents", [])] if isinstance(payload, dict) else []
    served_text = [c.get("text") for c in direct.result.get("contents", [])]
    note = vault / unquote(step.arguments["uri"].removeprefix("obsidian://note/"))
    if texts != served_text:
        problems.append("the resource's text differs from the server's own answer")
    if served_text != [note.read_text(encoding="utf-8")]:
        problems.append(f"the server's text is not the text of {note.name}")
    return problems


def direct_summary(direct: direct_call.Answer) -> str:
    if direct.error is not None:
        return f"JSON-RPC error {direct.error.get('code')}, data {json.dumps(direct.error.get('data'))}"
    result = direct.result or {}
    if "resources" in result:
        return f"{len(result['resources'])} resources"
    return f"contents of {sum(len(str(c.get('text', ''))) for c in result.get('contents', []))} characters"


def check_against_direct(result: Observed) -> list[str]:
    direct = result.direct
    if not isinstance(direct, direct_call.ToolAnswer):
        return ["no direct answer to compare with"]
    problems = []
    if direct.is_error != (result.is_error is True):
        problems.append(f"the server's isError is {direct.is_error}, Claude Code's is_error is {result.is_error}")
    if without_request_id(result.text) != without_request_id(direct.text):
        problems.append(
            "the text differs from the server's own answer (request_id aside):\n"
            f"      Claude Code: {result.text[:400]!r}\n      server:      {direct.text[:400]!r}"
        )
    return problems


def summarise(observed: list[Observed], version: str) -> None:
    say("\n" + "=" * 78)
    say(f"What Claude Code {version} passed to the model (tool_result blocks, verbatim):")
    say("=" * 78)
    for number, result in enumerate(observed, 1):
        arguments = json.dumps(result.step.arguments, ensure_ascii=False)
        text = result.text
        shown = text if len(text) <= 600 else text[:600] + f" … ({len(text)} chars in all)"
        say(f"\n{number}. {result.step.tool}({arguments})  expect: {result.step.expect}")
        flag = "(absent)" if result.is_error is None else json.dumps(result.is_error)
        say(f"   is_error: {flag}")
        say(f"   content: {shown}")
        if isinstance(result.direct, direct_call.Answer):
            say(f"   the server's own answer to the same request: {direct_summary(result.direct)}")
        elif result.direct is not None:
            same = without_request_id(result.text) == without_request_id(result.direct.text)
            verdict = "identical, request_id aside" if same else "DIFFERENT"
            say(f"   vs. the server's own answer (isError {json.dumps(result.direct.is_error)}): {verdict}")


def last_request_excerpt(records: list[dict[str, Any]], limit: int = 2000) -> str:
    bodies = [r["body"] for r in records if isinstance(r.get("body"), dict) and r["body"].get("messages")]
    if not bodies:
        return "    (none)"
    text = json.dumps(bodies[-1]["messages"][-1], ensure_ascii=False)
    return "    " + (text if len(text) <= limit else text[:limit] + f" … ({len(text)} chars in all)")


def run(tmp: Path) -> None:
    version = install_cli(tmp)
    vault = tmp / "vault"
    shutil.copytree(REPO / "examples" / "vault", vault)
    banner("1. typed errors and resources (gmail without a token)")
    run_main_case(tmp, version, vault)
    for number, variant in enumerate(guard_case.VARIANTS, 1):
        banner(f"2.{number} the send guard: a mail asks to be forwarded to a stranger; {variant.title}")
        root = tmp / f"guard-{variant.name}"
        root.mkdir()
        run_guard_case(root, variant, version, vault)


def banner(title: str) -> None:
    say("\n" + "#" * 78 + f"\n# {title}\n" + "#" * 78)


def run_main_case(tmp: Path, version: str, vault: Path) -> None:
    log_path = tmp / "requests.jsonl"
    server = fake.start(log_path)
    try:
        say(f"• fake Messages API on {server.base_url}")
        env = claude_env(tmp, server.base_url, vault)
        claude_timeout = time_left(CLAUDE_TIMEOUT)
        done = run_claude(env, claude_timeout)
    finally:
        server.shutdown()
        server.server_close()
    records = read_log(log_path)
    say(f"  claude finished in {done.seconds:.1f}s with exit code {done.returncode}")
    say(f"• requests Claude Code made to the fake Messages API:\n{describe_log(records)}")

    def fail(reason: str) -> Failure:
        return failure(reason, done, records, tmp / "home")

    if done.returncode is None:
        raise fail(f"claude did not finish within {claude_timeout:.0f}s")
    if done.returncode != 0:
        raise fail("claude exited with an error")
    try:
        observed = observed_results(records)
    except Failure as exc:
        raise fail(str(exc)) from exc
    say("• the same calls and requests made directly to the servers over stdio, for comparison …")
    add_direct_answers(observed, env)
    summarise(observed, version)
    problems = [
        f"{r.step.tool}({json.dumps(r.step.arguments)}): {p}"
        for r in observed
        for p in (check(r) + check_against_direct(r) if is_mcp_tool(r.step) else check_resource_step(r, vault))
    ]
    problems += [f"session: {p}" for p in check_session_result(done.stdout)]
    if problems:
        raise fail("Claude Code did not pass the tool results on intact:\n  - " + "\n  - ".join(problems))
    say("\n" + "-" * 78)
    say(
        f"PASS: Claude Code {version} passed 1 success and 3 typed errors (permission_denied, not_found, "
        "auth_required) to the model intact: each text identical to the server's own answer (request_id aside), "
        "is_error set exactly for the errors. Its own resource tools passed on obsidian's resource list and the "
        "note's text as the server served them; a missing note as its own not-found sentence; gmail's "
        "auth_required read as the contract message (with the re-auth command), is_error true; gmail's failed "
        "resources/list as no resources."
    )


def run_guard_case(root: Path, variant: guard_case.Variant, version: str, vault: Path) -> None:
    """A send-guard session: gmail-mcp on the emulator, a hostile mail, forward_email, an Elicitation hook that
    declines (guard_case.py)."""
    case = guard_case.GuardCase.start(root, variant)
    try:
        script = case.script()
        say(f"• Gmail emulator on {case.emulator.base_url}")
        say(case.planted())
        log_path = root / "requests.jsonl"
        server = fake.start(log_path, script=script)
        try:
            say(f"• fake Messages API on {server.base_url}")
            env = claude_env(root, server.base_url, vault, gmail=case.env(), hooks=case.hooks())
            if not (root / "bin" / "uv").is_symlink():
                raise Failure("no uv binary found to put gmail-mcp's stdio tap in front of")
            case.install_tap(root / "bin")
            say(f"• Elicitation hook: {case.hooks()['Elicitation'][0]['hooks'][0]['command']}")
            say(f"• gmail-mcp's stdio recorded by {guard_case.TAP.name} (through the session's uv on PATH)")
            if variant.claude_env:
                say("• Claude Code setting: " + " ".join(f"{k}={v}" for k, v in variant.claude_env.items()))
            claude_timeout = time_left(CLAUDE_TIMEOUT)
            done = run_claude(env, claude_timeout, case.allowed_tools(), guard_case.PROMPT)
        finally:
            server.shutdown()
            server.server_close()
        records = read_log(log_path)
        (root / "claude-stdout.json").write_text(done.stdout, encoding="utf-8")  # for CLAUDE_E2E_KEEP=1
        home = root / "home"
        say(f"  claude finished in {done.seconds:.1f}s with exit code {done.returncode}")
        say(f"• requests Claude Code made to the fake Messages API:\n{describe_log(records)}")

        def fail(reason: str) -> Failure:
            return failure(f"{reason}\n\n{case.describe([], guard_case.mcp_log_lines(home))}", done, records, home)

        if done.returncode is None:
            raise fail(f"claude did not finish within {claude_timeout:.0f}s")
        if done.returncode != 0:
            raise fail("claude exited with an error")
        try:
            observed = observed_results(records, script.steps)
        except Failure as exc:
            raise fail(str(exc)) from exc
        say("\n" + "=" * 78)
        say(f"What Claude Code {version} did with the send guard ({variant.title}):")
        say("=" * 78)
        say(case.describe(observed, guard_case.mcp_log_lines(home)))
        problems = case.check(observed)
        problems += [f"session: {p}" for p in check_session_result(done.stdout, script.final_text)]
        if problems:
            raise failure(
                f"the send guard case ({variant.name}) failed:\n  - " + "\n  - ".join(problems), done, records, home
            )
    finally:
        case.stop()
    say("\n" + "-" * 78)
    if variant.handshake:
        say(
            f"PASS ({variant.name}): Claude Code {version} declared elicitation in initialize, passed gmail-mcp's "
            f"elicitation/create (one form, a boolean `send`, naming {guard_case.STRANGER}) to its Elicitation hook "
            "and answered the server the hook's decline; the model got permission_denied / details.reason declined "
            "(is_error true); the emulator sent nothing and kept no draft; the audit log holds the forward as declined."
        )
    else:
        say(
            f"PASS ({variant.name}): Claude Code {version} spoke MCP 2026-07-28 (elicitation declared in each "
            "request's _meta); gmail-mcp answered the forward with InputRequiredResult holding the form (one boolean "
            f"`send`, naming {guard_case.STRANGER}); Claude Code ran its Elicitation hook, which declined, and called "
            "forward_email again with the decline in inputResponses; the model got permission_denied / "
            "details.reason declined (is_error true); the emulator sent nothing and kept no draft; the audit log "
            "holds the forward as declined."
        )


def main() -> int:
    global _deadline
    started = time.monotonic()
    _deadline = started + BUDGET
    keep = os.environ.get("CLAUDE_E2E_KEEP") == "1"  # keep the temp dir (request log, MCP logs) for debugging
    tmp = Path(tempfile.mkdtemp(prefix="claude-e2e-"))
    try:
        run(tmp)
    except Failure as exc:
        say(f"\nFAIL: {exc}")
        return 1
    finally:
        if keep:
            say(f"(kept {tmp}: requests.jsonl is the fake Messages API's request log)")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
        say(f"(took {time.monotonic() - started:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
