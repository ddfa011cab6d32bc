"""Read retries through the real client library: bounded, jittered, and at least as patient as Retry-After."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from gmail_emulator import Emulator, Fault
from gmail_mcp.api.client import GmailClient
from gmail_mcp.api.errors import ApiUnavailable, RateLimited


def list_labels(client: GmailClient) -> dict[str, object]:
    return client.execute(lambda users: users.labels().list(userId="me"), "label")


def attempts(emu: Emulator) -> int:
    return sum(1 for record in emu.request_log() if record.route == "labels.list")


def test_retry_after_is_honoured_before_the_next_attempt(emu: Emulator, client: GmailClient) -> None:
    emu.add_fault(Fault(route="labels.list", status=429, reason="rateLimitExceeded", retry_after=1, times=1))
    started = time.monotonic()
    assert list_labels(client)["labels"]
    assert time.monotonic() - started >= 1.0, "the retry came before Retry-After allowed it"
    assert attempts(emu) == 2


def test_rate_limit_403_is_retried_like_429(emu: Emulator, client: GmailClient) -> None:
    emu.add_fault(Fault(route="labels.list", status=403, reason="userRateLimitExceeded", times=2))
    assert list_labels(client)["labels"]
    assert attempts(emu) == 3


def test_retries_are_bounded(emu: Emulator, client: GmailClient) -> None:
    emu.add_fault(Fault(route="labels.list", status=500, reason="backendError", times=None))
    with pytest.raises(ApiUnavailable):
        list_labels(client)
    assert attempts(emu) == client.settings.max_attempts


def test_a_long_retry_after_is_answered_at_once(emu: Emulator, client: GmailClient) -> None:
    emu.add_fault(Fault(route="labels.list", status=429, reason="rateLimitExceeded", retry_after=3600, times=None))
    started = time.monotonic()
    with pytest.raises(RateLimited) as caught:
        list_labels(client)
    assert caught.value.retry_after_seconds == 3600 and time.monotonic() - started < 1.0
    assert attempts(emu) == 1


def test_backoff_is_jittered(make_client: Callable[..., GmailClient]) -> None:
    client = make_client(backoff=1.0)
    waits = {client._retry_wait(ApiUnavailable("x"), attempt=2) for _ in range(50)}
    assert len(waits) > 40 and all(w is not None and 0 <= w <= 2.0 for w in waits)


def test_a_batch_error_without_a_response_is_classified_not_a_crash() -> None:
    # Regression guard (schema fuzzing): BatchError(resp=None).status_code raises AttributeError,
    # which turned an unreadable batch answer into internal_error.
    from gmail_mcp.api.classify import classify
    from gmail_mcp.api.errors import ApiUnavailable
    from googleapiclient.errors import BatchError

    failure = classify(BatchError("Invalid response from server", resp=None, content=b""), "message", "x")
    assert isinstance(failure, ApiUnavailable)
