"""The authorised-user token file: loading it into google-auth credentials and saving it back safely.

The file is written atomically with mode 0600 in a 0700 folder. Its `token_uri` is
honoured (google-auth's own `from_authorized_user_file` ignores it). Beside the token it
records the account's address (`email`, from users.getProfile at `gmail-mcp auth`), kept
when a refreshed token is saved back. Nothing here ever logs a token or a secret.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gmail_mcp.api.errors import AuthRequired
from gmail_mcp.files import atomic_write

if TYPE_CHECKING:
    from google.oauth2.credentials import Credentials

log = logging.getLogger(__name__)

GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"
_EXPIRY_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


@dataclass(frozen=True)
class TokenFacts:
    """What a token file says about its account without loading credentials (nothing is checked)."""

    email: str | None
    scopes: list[str] | None  # None: the file lists none


class TokenStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._email: str | None = None  # the recorded address, kept across saves

    def facts(self) -> TokenFacts:
        """The recorded address and the granted scopes; `AuthRequired` when there is no usable file."""
        info = self._read()
        email, scopes = info.get("email"), info.get("scopes")
        return TokenFacts(
            email=email if isinstance(email, str) and email else None,
            scopes=[str(s) for s in scopes] if isinstance(scopes, list) and scopes else None,
        )

    def load(self) -> Credentials:
        """Credentials from the token file; `AuthRequired` when there is no usable token."""
        from google.oauth2.credentials import Credentials

        info = self._read()
        if isinstance(info.get("email"), str):
            self._email = info["email"]
        if not info.get("refresh_token") and not info.get("token"):
            raise AuthRequired("no_token", "the token file holds no token")
        expiry = None
        if info.get("expiry"):
            try:
                expiry = dt.datetime.strptime(str(info["expiry"]).replace("+00:00", "Z"), _EXPIRY_FORMAT)
            except ValueError:
                with contextlib.suppress(ValueError):
                    parsed = dt.datetime.fromisoformat(str(info["expiry"]).rstrip("Z"))
                    expiry = parsed.astimezone(dt.UTC).replace(tzinfo=None) if parsed.tzinfo else parsed
        return Credentials(  # type: ignore[no-untyped-call]
            token=info.get("token"),
            refresh_token=info.get("refresh_token"),
            token_uri=info.get("token_uri") or GOOGLE_TOKEN_URI,
            client_id=info.get("client_id"),
            client_secret=info.get("client_secret"),
            scopes=info.get("scopes"),
            expiry=expiry,
        )

    def save(self, creds: Credentials, email: str | None = None) -> None:
        """Write the credentials back (after a refresh or an authorisation), atomically, 0600.

        `email` records the account's address; without it the address read last is kept."""
        if email is not None:
            self._email = email
        data: dict[str, Any] = {
            "token": creds.token,
            "refresh_token": creds.refresh_token,
            "token_uri": creds.token_uri,
            "client_id": creds.client_id,
            "client_secret": creds.client_secret,
            "scopes": list(creds.scopes or []),
            "expiry": creds.expiry.strftime(_EXPIRY_FORMAT) if creds.expiry else None,
        }
        if self._email:
            data["email"] = self._email
        write_private_json(self.path, data)

    def _read(self) -> dict[str, Any]:
        try:
            mode = self.path.stat().st_mode
        except FileNotFoundError:
            raise AuthRequired("no_token", "no Gmail token is stored yet") from None
        except OSError:
            raise AuthRequired("no_token", "the Gmail token file cannot be read") from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            # Fix rather than refuse: the user's next call works, and the exposure ends now.
            os.chmod(self.path, 0o600)
            log.warning("token file was readable by others; its mode was set to 0600")
        try:
            info = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            raise AuthRequired("no_token", "the Gmail token file is corrupt") from None
        if not isinstance(info, dict):
            raise AuthRequired("no_token", "the Gmail token file is corrupt")
        return info


def write_private_json(path: Path, data: dict[str, Any]) -> None:
    """Atomically replace `path` with JSON readable by the owner only; its folder is made 0700."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data).encode("utf-8"), mode=0o600)
