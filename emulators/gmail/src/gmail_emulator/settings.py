"""Send-as aliases (``users.settings.sendAs``) and forwarding addresses
(``users.settings.forwardingAddresses``) of one mailbox.

Sources: https://developers.google.com/gmail/api/reference/rest/v1/users.settings.sendAs and the
packaged discovery document (``SendAs`` fields ``sendAsEmail, displayName, replyToAddress,
signature, isPrimary, isDefault, treatAsAlias, verificationStatus``; the list "includes the primary
send-as address associated with the account as well as any custom 'from' aliases"; ``get`` "fails
with an HTTP 404 error if the specified address is not a member of the collection"; every account
has exactly one primary and exactly one default address; ``treatAsAlias`` and
``verificationStatus`` "only apply to custom 'from' aliases"), and
https://developers.google.com/workspace/gmail/api/guides/alias_and_signature_settings.

Rendering follows proto3 JSON as Google APIs emit it: empty strings and false booleans are
left out, so a client must read ``signature``/``isDefault``/... with a default (a primary
address with no signature has no ``signature`` key at all).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

VERIFICATION_STATUSES = ("accepted", "pending")


@dataclass
class SendAs:
    send_as_email: str
    display_name: str = ""
    reply_to_address: str = ""
    signature: str = ""
    is_primary: bool = False
    is_default: bool = False
    treat_as_alias: bool = True
    verification_status: str = "accepted"

    def resource(self) -> dict[str, Any]:
        out: dict[str, Any] = {"sendAsEmail": self.send_as_email}
        if self.display_name:
            out["displayName"] = self.display_name
        if self.reply_to_address:
            out["replyToAddress"] = self.reply_to_address
        if self.signature:
            out["signature"] = self.signature
        if self.is_primary:
            out["isPrimary"] = True
        if self.is_default:
            out["isDefault"] = True
        if not self.is_primary:
            if self.treat_as_alias:
                out["treatAsAlias"] = True
            out["verificationStatus"] = self.verification_status
        return out


def forwarding_resource(email: str, status: str) -> dict[str, str]:
    return {"forwardingEmail": email, "verificationStatus": status}
