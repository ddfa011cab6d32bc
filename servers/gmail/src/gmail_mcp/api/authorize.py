"""The installed-app OAuth flow (google-auth-oauthlib) on a loopback port.

The scope comes from `Access` (gmail.modify by default: the least that covers every tool; gmail.readonly
with --read-only). The full-mail scope is never asked for, because it also allows permanent deletion.
"""

from __future__ import annotations

import json
from pathlib import Path

from gmail_mcp.api.access import Access
from gmail_mcp.api.tokens import TokenStore
from gmail_mcp.config import Settings


class AuthorizationError(Exception):
    pass


def authorize(settings: Settings, *, open_browser: bool, port: int = 0) -> Path:
    from google_auth_oauthlib.flow import InstalledAppFlow

    scopes = [Access(settings.read_only).scope]
    try:
        client_config = json.loads(settings.credentials_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AuthorizationError(
            f"no OAuth client file at {settings.credentials_file}; download a 'Desktop app' OAuth client "
            "from Google Cloud Console and point GMAIL_MCP_CREDENTIALS_FILE at it"
        ) from None
    except (OSError, ValueError) as exc:
        raise AuthorizationError(f"cannot read the OAuth client file: {exc.__class__.__name__}") from None
    try:
        flow = InstalledAppFlow.from_client_config(client_config, scopes=scopes)
    except ValueError as exc:
        raise AuthorizationError(f"the OAuth client file is not an installed-app client: {exc}") from None
    creds = flow.run_local_server(
        host="127.0.0.1",
        port=port,
        open_browser=open_browser,
        authorization_prompt_message="Open this URL in a browser to authorise gmail-mcp:\n{url}",
        success_message="gmail-mcp is authorised; you can close this window.",
    )
    TokenStore(settings.token_file).save(creds)
    return settings.token_file
