"""Claude Code's `Elicitation` hook for the send-guard case of `make claude-e2e`: record, then decline.

Claude Code (2.1.332) runs the command hooks of `"hooks": {"Elicitation": [...]}` in its settings when an
MCP server sends `elicitation/create`, before it would show its own dialog. The hook gets one JSON object
on stdin: the common fields (`session_id`, `transcript_path`, `cwd`, `prompt_id`) plus
`hook_event_name: "Elicitation"`, `mcp_server_name`, `message`, `mode` ("form" or "url"), `url`,
`elicitation_id` and `requested_schema`. An answer on stdout of
`{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "decline"}}` makes Claude Code answer the
server `{"action": "decline"}` without asking anyone.

Usage (the command in settings.json): `python elicitation_hook.py RECORD_FILE`. Each input is appended to
RECORD_FILE as one JSON line (unparsable input as {"unparsed_stdin": …}). Stdlib only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DECLINE = {"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "decline"}}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: elicitation_hook.py RECORD_FILE", file=sys.stderr)
        return 1
    raw = sys.stdin.read()
    try:
        received = json.loads(raw)
    except ValueError:
        received = {"unparsed_stdin": raw}
    with Path(argv[1]).open("a", encoding="utf-8") as record:
        record.write(json.dumps(received, ensure_ascii=False) + "\n")
    if isinstance(received, dict) and received.get("hook_event_name") == "Elicitation":
        print(json.dumps(DECLINE))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
