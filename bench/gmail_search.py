"""search_emails against the emulator with 100 ms of latency on every request, same run as a naive loop.

The server is driven over stdio exactly as a client would (uv-less: `python -m gmail_mcp`). The
baseline is what a straightforward client does with the same library: messages.list, then one
messages.get per result. Both fetch the same 20 summaries; the emulator's request log counts the
upstream round trips (a batch is one HTTP request).

    uv run python bench/gmail_search.py [--latency 0.1] [--runs 5]
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

QUERY = "in:anywhere"


def plant(emulator: Emulator, count: int) -> None:
    for i in range(count):
        raw = (
            f"From: Bench {i} <bench{i}@example.com>\r\nTo: me@example.com\r\nSubject: bench message {i}\r\n"
            f"Message-ID: <bench-{i}@example.com>\r\n\r\nbody {i}\r\n"
        ).encode()
        emulator.add_message(raw, label_ids=["INBOX"])


def http_round_trips(emulator: Emulator) -> int:
    return sum(1 for record in emulator.request_log() if not getattr(record, "in_batch", False))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    with Emulator() as emulator, tempfile.TemporaryDirectory() as tmp:
        plant(emulator, 40)
        token = Path(tmp) / "token.json"
        token.write_text(json.dumps(emulator.issue_token()))
        os.chmod(token, 0o600)
        server = RawServer(
            "gmail_mcp", [], {"GMAIL_MCP_TOKEN_FILE": str(token), "GMAIL_MCP_API_ENDPOINT": emulator.base_url}
        )
        server.initialize()
        server.request(tool_call(1, "search_emails", {"query": QUERY, "max_results": 20}))  # warm: labels cached
        emulator.set_latency(options.latency)
        ours, naive, trips = [], [], {}
        client = GmailClient(ClientSettings(token_file=token, api_endpoint=emulator.base_url))
        client.execute(lambda users: users.labels().list(userId="me"))  # warm the naive client's connection too
        for run in range(options.runs):
            emulator.clear_requests()
            started = time.perf_counter()
            reply = server.request(tool_call(100 + run, "search_emails", {"query": QUERY, "max_results": 20}))
            ours.append(time.perf_counter() - started)
            assert len(reply["result"]["structuredContent"]["messages"]) == 20
            trips["search_emails"] = http_round_trips(emulator)

            emulator.clear_requests()
            started = time.perf_counter()
            listed = client.execute(lambda users: users.messages().list(userId="me", q=QUERY, maxResults=20))
            for item in listed["messages"]:
                client.execute(
                    lambda users, i=item["id"]: users.messages().get(
                        userId="me", id=i, format="metadata", metadataHeaders=["From", "To", "Subject", "Date"]
                    )
                )
            naive.append(time.perf_counter() - started)
            trips["naive loop"] = http_round_trips(emulator)
        server.close()
    print(f"20-result search, {options.latency * 1000:.0f} ms latency per request, median of {options.runs} runs")
    print(f"{'method':<16}{'round trips':>12}{'median s':>10}")
    for name, values in (("search_emails", ours), ("naive loop", naive)):
        print(f"{name:<16}{trips[name]:>12}{statistics.median(values):>10.3f}")
    print(f"speed-up: {statistics.median(naive) / statistics.median(ours):.1f}x (target: ≤ 0.25 s, 2 round trips)")


if __name__ == "__main__":
    main()
