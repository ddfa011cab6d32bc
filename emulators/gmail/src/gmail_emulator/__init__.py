"""A fake of the Gmail REST API v1 on 127.0.0.1 (standard library only), with fault injection.

Driven over HTTP by the real google-api-python-client; see ``Emulator`` and ``Fault``.
"""

from .emulator import Emulator
from .faults import Fault
from .filters import criteria_to_query
from .mailbox import Mailbox
from .request_log import RequestRecord

__all__ = ["Emulator", "Fault", "Mailbox", "RequestRecord", "criteria_to_query"]
