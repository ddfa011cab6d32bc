"""Fixtures: a fresh seeded emulator per test and a REAL googleapiclient Gmail service for it.

(pytest runs with --import-mode=importlib, so test modules cannot import from here: shared
things are fixtures.)"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Callable, Iterator
from typing import Any

import google_auth_httplib2
import httplib2
import pytest
from gmail_emulator import Emulator
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build_from_document

MODIFY = "https://www.googleapis.com/auth/gmail.modify"

_DOC: dict[str, Any] = json.loads(
    (importlib.resources.files("googleapiclient") / "discovery_cache/documents/gmail.v1.json").read_text()
)


def credentials_from(token: dict[str, Any]) -> Credentials:
    return Credentials(
        token=token["token"],
        refresh_token=token["refresh_token"],
        token_uri=token["token_uri"],
        client_id=token["client_id"],
        client_secret=token["client_secret"],
        scopes=token["scopes"],
    )


def build_service(emu: Emulator, token: dict[str, Any] | None = None, timeout: float = 5.0) -> Any:
    doc = dict(_DOC)
    doc["rootUrl"] = emu.base_url
    doc["mtlsRootUrl"] = emu.base_url
    creds = credentials_from(token or emu.issue_token())
    transport = httplib2.Http(timeout=timeout)
    # As googleapiclient.http.build_http() does: 308 is "resume incomplete", not a redirect.
    transport.redirect_codes = transport.redirect_codes - {308}
    http = google_auth_httplib2.AuthorizedHttp(creds, http=transport)
    return build_from_document(doc, http=http)


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator() as e:
        yield e
    assert e.internal_errors == []


@pytest.fixture
def svc(emu: Emulator) -> Any:
    return build_service(emu)


@pytest.fixture
def service_for(emu: Emulator) -> Callable[..., Any]:
    """``service_for(scopes=(...), timeout=5.0, token=None)`` -> a Gmail service."""

    def make(scopes: tuple[str, ...] = (MODIFY,), timeout: float = 5.0, token: dict[str, Any] | None = None) -> Any:
        return build_service(emu, token or emu.issue_token(scopes), timeout)

    return make


@pytest.fixture
def build() -> Callable[..., Any]:
    """``build(emu, token=None, timeout=5.0)`` -> a Gmail service for any emulator instance."""
    return build_service
