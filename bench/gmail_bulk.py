"""Archive 2,000 messages matching a query with 100 ms of latency on every request, against a naive loop.

The server is driven over stdio exactly as a client would (uv-less: `python -m gmail_mcp`):
`modify_labels(query=..., remove_labels=["INBOX"], dry_run=false)` pages messages.list (500 ids a page),
fetches a sample in one batch, and changes the messages with messages.batchModify (1000 ids a request).
The baseline is what a straightforward client does with the same library: list the ids the same way,
then one messages.modify per id. The emulator's request log counts the upstream round trips (a batch
is one HTTP request).

The naive loop costs about 2,000 × the latency (over 3 minutes at 100 ms), so by default it modifies
`--naive-sample` messages and its time for all of them is extrapolated linearly (it is one request
after another, nothing else); `--full-naive` runs it on every message.

    uv run python bench/gmail_bulk.py [--latency 0.1] [--messages 2000] [--runs 3] [--naive-sample 100]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gmail_emulator import Emulator
from gmail_mcp.api.client import ClientSettings, GmailClient

from tests.contract.raw import RawServer, tool_call

QUERY = "in:inbox subject:(bulk bench)"
TARGET_SECONDS = 1.5
TARGET_ROUND_TRIPS = 8


def plant(emulator: Emulator, count: int) -> list[str]:
    ids = []
    for i in range(count):
        raw = (
            f"From: Sender {i} <sender{i}@example.com>\r\nTo: me@example.com\r\nSubject: bulk bench {i}\r\n"
            f"Message-ID: <bulk-{i}@example.com>\r\n\r\nbody {i}\r\n"
        ).encode()
        ids.append(emulator.add_message(raw, label_ids=["INBOX"]))
    return ids


def back_to_inbox(emulator: Emulator, ids: list[str]) -> None:
    """Undo an archive directly in the emulator (no request, no latency)."""
    for start in range(0, len(ids), 1000):
        emulator.mailbox.batch_modify(ids[start : start + 1000], ["INBOX"], [])


def http_round_trips(emulator: Emulator) -> int:
    return sum(1 for record in emulator.request_log() if not record.in_batch)


def naive_archive(client: GmailClient, sample: int | None) -> tuple[int, float]:
    """List every matching id (500 a page), then messages.modify one by one (the first `sample`, or all).
    Answers (ids modified, seconds spent modifying)."""
    ids: list[str] = []
    page_token = None
    while True:
        listed = client.execute(
            lambda users, token=page_token: users.messages().list(userId="me", q=QUERY, maxResults=500, pageToken=token)
        )
        ids += [item["id"] for item in listed.get("messages", [])]
        page_token = listed.get("nextPageToken")
        if not page_token:
            break
    started = time.perf_counter()
    for message_id in ids[:sample] if sample else ids:
        client.execute(
            lambda users, i=message_id: users.messages().modify(userId="me", id=i, body={"removeLabelIds": ["INBOX"]})
        )
    return len(ids), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--naive-sample", type=int, default=100)
    parser.add_argument("--full-naive", action="store_true", help="modify every message in the naive loop")
    options = parser.parse_args()
    with Emulator() as emulator, tempfile.TemporaryDirectory() as tmp:
        ids = plant(emulator, options.messages)
        token = Path(tmp) / "token.json"
        token.write_text(json.dumps(emulator.issue_token()))
        os.chmod(token, 0o600)
        env = {
            "GMAIL_MCP_TOKEN_FILE": str(token),
            "GMAIL_MCP_TOKEN_DIR": str(Path(tmp) / "tokens"),
            "GMAIL_MCP_API_ENDPOINT": emulator.base_url,
        }
        server = RawServer("gmail_mcp", [], env)
        server.initialize()
        warm = {"query": "subject:(no such bench)", "remove_labels": ["INBOX"], "dry_run": False}
        server.request(tool_call(1, "modify_labels", warm))  # warm: imports, connection
        emulator.set_latency(options.latency)
        arguments = {"query": QUERY, "remove_labels": ["INBOX"], "dry_run": False, "max_messages": 5000}
        ours, trips = [], 0
        for run in range(options.runs):
            back_to_inbox(emulator, ids)
            emulator.clear_requests()
            started = time.perf_counter()
            reply = server.request(tool_call(100 + run, "modify_labels", arguments), timeout=120)
            ours.append(time.perf_counter() - started)
            answer = reply["result"]["structuredContent"]
            assert answer["modified"] == options.messages == answer["matched"], answer
            assert not emulator.message_ids("INBOX") or set(emulator.message_ids("INBOX")).isdisjoint(ids)
            trips = http_round_trips(emulator)
        server.close()

        back_to_inbox(emulator, ids)
        client = GmailClient(ClientSettings(token_file=token, api_endpoint=emulator.base_url))
        client.execute(lambda users: users.labels().list(userId="me"))  # warm the naive client's connection too
        emulator.clear_requests()
        started = time.perf_counter()
        sample = None if options.full_naive else min(options.naive_sample, options.messages)
        listed, modify_seconds = naive_archive(client, sample)
        list_seconds = time.perf_counter() - started - modify_seconds
        done = sample or listed
        naive = list_seconds + modify_seconds * listed / done
        naive_trips = http_round_trips(emulator) + (listed - done)

    how = "measured" if done == listed else f"extrapolated from {done} of {listed} modifies"
    print(f"archive {options.messages} messages by query, {options.latency * 1000:.0f} ms latency per request")
    print(f"{'method':<22}{'round trips':>12}{'seconds':>10}")
    print(f"{'modify_labels (query)':<22}{trips:>12}{statistics.median(ours):>10.3f}   median of {options.runs} runs")
    print(f"{'naive modify loop':<22}{naive_trips:>12}{naive:>10.1f}   {how}")
    print(
        f"speed-up: {naive / statistics.median(ours):.0f}x "
        f"(target: ≤ {TARGET_ROUND_TRIPS} round trips and < {TARGET_SECONDS} s; "
        f"{'met' if trips <= TARGET_ROUND_TRIPS and statistics.median(ours) < TARGET_SECONDS else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
