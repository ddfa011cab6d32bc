"""`make demo`: both servers started as an MCP client starts them, driven through real calls.

obsidian-mcp works on a temporary copy of examples/vault; gmail-mcp talks to the bundled
Gmail emulator (emulators/gmail) with a token it issued, then once more without any token
to show the typed `auth_required` error.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gmail_emulator import Emulator

from tests.contract.harness import REPO, Session, running


def show(title: str, payload: dict[str, Any], limit: int = 900) -> None:
    text = json.dumps(payload, ensure_ascii=False, indent=2)
    if len(text) > limit:
        text = text[:limit] + "\n  … (cut for the transcript)"
    print(f"\n→ {title}\n{textwrap.indent(text, '  ')}")


async def call(session: Session, name: str, args: dict[str, Any] | None = None, limit: int = 900) -> dict[str, Any]:
    answer = await session.call(name, args or {})
    show(f"{name}({json.dumps(args or {}, ensure_ascii=False)})", answer.payload, limit)
    return answer.payload


async def obsidian_demo(workdir: Path) -> None:
    vault = workdir / "vault"
    shutil.copytree(REPO / "examples" / "vault", vault)
    print("=" * 78 + "\nobsidian-mcp on a copy of examples/vault\n" + "=" * 78)
    env = {"OBSIDIAN_MCP_INDEX_DIR": str(workdir / "index")}
    async with running(["obsidian-mcp", "--vault", str(vault)], env) as session:
        print("tools:", ", ".join(await session.tool_names()))
        await call(session, "list_notes", {"folder": "Projects", "limit": 3})
        await call(session, "read_note", {"path": "Projects/Alpha", "max_chars": 400})
        await call(session, "search_notes", {"query": "launch criteria", "limit": 3})
        await call(session, "search_notes", {"query": "how do I undo a purchase", "limit": 2})
        await call(session, "query_notes", {"query": 'TABLE status FROM "Projects" SORT file.name'}, limit=900)
        await call(session, "get_backlinks", {"path": "Projects/Garden Shed"}, limit=700)
        await call(session, "daily_note", {"date": "2026-11-22"}, limit=600)
        await call(session, "append_to_note", {"path": "Inbox", "content": "- [ ] Try the MCP demo\n"})
        await call(session, "read_note", {"path": "../../etc/passwd"})
        await call(session, "write_note", {"path": "Projects/Alpha", "content": "oops"})


async def gmail_demo(workdir: Path) -> None:
    print("\n" + "=" * 78 + "\ngmail-mcp on the bundled Gmail emulator\n" + "=" * 78)
    with Emulator() as emulator:
        token = workdir / "gmail" / "token.json"
        token.parent.mkdir(mode=0o700)
        token.write_text(json.dumps(emulator.issue_token()))
        os.chmod(token, 0o600)
        env = {
            "GMAIL_MCP_TOKEN_FILE": str(token),
            "GMAIL_MCP_API_ENDPOINT": emulator.base_url,
            "GMAIL_MCP_DOWNLOAD_DIR": str(workdir / "downloads"),
        }
        async with running(["gmail-mcp"], env) as session:
            print("tools:", ", ".join(await session.tool_names()))
            found = await call(session, "search_emails", {"query": "is:unread", "max_results": 3}, limit=1200)
            if found.get("messages"):
                await call(session, "get_email", {"message_id": found["messages"][0]["id"], "max_body_chars": 300})
            await call(session, "list_labels", limit=500)
    print("\n" + "-" * 78 + "\ngmail-mcp with no token: every tool answers auth_required\n" + "-" * 78)
    env = {"GMAIL_MCP_TOKEN_FILE": str(workdir / "absent.json"), "GMAIL_MCP_API_ENDPOINT": "http://127.0.0.1:9/"}
    async with running(["gmail-mcp"], env) as session:
        await call(session, "search_emails", {"query": "in:inbox"})


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="mcp-demo-") as tmp:
        await obsidian_demo(Path(tmp))
        await gmail_demo(Path(tmp))
    print("\ndemo finished: both servers answered every call in the contract.")


if __name__ == "__main__":
    anyio.run(main)
