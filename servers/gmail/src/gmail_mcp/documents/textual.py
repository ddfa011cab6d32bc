"""Documents that are text already: plain text, CSV and HTML, decoded as get_email decodes a body (the
declared charset or its common superset, else UTF-8; a byte-order mark wins)."""

from __future__ import annotations

import csv
import io

from ..mail.text import decode_bytes
from .errors import UnreadableDocument
from .extracted import Extracted, clean, one_line
from .limits import Budget, Limits

_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def decode(data: bytes, charset: str | None) -> tuple[str, bool]:
    """(text, exact): a byte-order mark decides, else the declared charset as get_email reads it."""
    for mark, codec in _BOMS:
        if data.startswith(mark):
            text = data[len(mark) :].decode(codec, errors="replace")
            return text, "\ufffd" not in text
    return decode_bytes(data, charset)


def read_text(data: bytes, charset: str | None, limits: Limits) -> Extracted:
    text, exact = decode(data, charset)
    budget = Budget(limits)
    budget.add(clean(text))
    return Extracted(text=budget.text(), kind="text", cut=budget.cut, problems=[] if exact else ["charset_replaced"])


def read_html(data: bytes, charset: str | None, limits: Limits) -> Extracted:
    from ..mail.htmltext import html_to_text  # the converter get_email uses for HTML mail

    markup, exact = decode(data, charset)
    text, input_cut = html_to_text(markup)
    budget = Budget(limits)
    budget.add(clean(text).strip("\n") + "\n")
    if input_cut:
        budget.stop("size", len(text))
    return Extracted(text=budget.text(), kind="html", cut=budget.cut, problems=[] if exact else ["charset_replaced"])


def read_csv(data: bytes, charset: str | None, limits: Limits) -> Extracted:
    """Each record a line, its fields separated by ` | `; the delimiter is sniffed (`,` `;` TAB `|`)."""
    text, exact = decode(data, charset)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    budget = Budget(limits)
    cells = 0
    try:
        for count, record in enumerate(csv.reader(io.StringIO(text, newline=""), dialect)):
            cells += len(record)
            if cells > limits.max_cells:
                budget.stop("cells", cells - len(record))
                break
            if count % 1000 == 0 and budget.out_of_time(count):
                break
            fields = [one_line(field) for field in record[: limits.max_columns]]
            if any(fields) and not budget.add(" | ".join(fields) + "\n"):
                break
    except csv.Error as exc:  # a field over csv's size limit, a NUL byte
        raise UnreadableDocument("corrupt", f"the CSV cannot be read: {exc}") from exc
    return Extracted(text=budget.text(), kind="csv", cut=budget.cut, problems=[] if exact else ["charset_replaced"])
