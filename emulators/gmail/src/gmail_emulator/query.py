"""Gmail search (``q``) parser and evaluator.

Supported: free words and "quoted phrases" (word-wise, case-insensitive, over subject, addresses,
body text and attachment names), ``-term`` negation, ``OR`` (binds tighter than the implicit AND,
as in Gmail), ``( )`` grouping, ``{a b}`` (any of), and the operators ``from: to: cc: bcc:
subject: label: is: in: has: category: filename: rfc822msgid: after: before: older: newer:
older_than: newer_than: larger: smaller:``, with ``op:(a b)`` and ``op:"a b"`` values.
Dates given as YYYY/MM/DD are midnight in America/Los_Angeles (Gmail's documented PST rule);
epoch seconds are taken as is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import cached_property

try:
    from zoneinfo import ZoneInfo

    _PACIFIC: tzinfo = ZoneInfo("America/Los_Angeles")
except Exception:  # pragma: no cover - no tz database on this machine
    _PACIFIC = timezone(timedelta(hours=-8))

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r"\w+")

ADDRESS_OPS = frozenset({"from", "to", "cc", "bcc", "deliveredto", "list"})
KNOWN_OPS = ADDRESS_OPS | {
    "subject",
    "label",
    "is",
    "in",
    "has",
    "category",
    "filename",
    "rfc822msgid",
    "after",
    "before",
    "older",
    "newer",
    "older_than",
    "newer_than",
    "larger",
    "smaller",
    "size",
}

CATEGORIES = {
    "primary": "CATEGORY_PERSONAL",
    "personal": "CATEGORY_PERSONAL",
    "social": "CATEGORY_SOCIAL",
    "promotions": "CATEGORY_PROMOTIONS",
    "updates": "CATEGORY_UPDATES",
    "forums": "CATEGORY_FORUMS",
}


# ----- AST ------------------------------------------------------------------------------------
@dataclass
class Leaf:
    op: str | None  # None: free text
    value: str
    phrase: bool = False


@dataclass
class Not:
    node: Node


@dataclass
class And:
    items: list[Node] = field(default_factory=list)


@dataclass
class Or:
    items: list[Node] = field(default_factory=list)


Node = Leaf | Not | And | Or


# ----- tokenizer ------------------------------------------------------------------------------
@dataclass
class _Tok:
    kind: str  # WORD PHRASE OP OPPHRASE OPGROUP LPAREN RPAREN LBRACE RBRACE NEG OR
    text: str = ""
    op: str = ""


def _tokenize(q: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(q)
    stops = set(' \t\r\n(){}"')
    while i < n:
        c = q[i]
        if c.isspace():
            i += 1
        elif c in "()":
            toks.append(_Tok("LPAREN" if c == "(" else "RPAREN"))
            i += 1
        elif c in "{}":
            toks.append(_Tok("LBRACE" if c == "{" else "RBRACE"))
            i += 1
        elif c == '"':
            end = q.find('"', i + 1)
            end = n if end < 0 else end
            toks.append(_Tok("PHRASE", q[i + 1 : end]))
            i = end + 1
        elif c == "-" and i + 1 < n and not q[i + 1].isspace():
            toks.append(_Tok("NEG"))
            i += 1
        else:
            j = i
            while j < n and q[j] not in stops:
                j += 1
            word = q[i:j]
            op, colon, rest = word.partition(":")
            op_l = op.lower()
            if colon and op_l in KNOWN_OPS:
                if rest:
                    toks.append(_Tok("OP", rest, op_l))
                elif j < n and q[j] == '"':
                    end = q.find('"', j + 1)
                    end = n if end < 0 else end
                    toks.append(_Tok("OPPHRASE", q[j + 1 : end], op_l))
                    j = end + 1
                elif j < n and q[j] == "(":
                    toks.append(_Tok("OPGROUP", "", op_l))
                    j += 1
                else:
                    toks.append(_Tok("WORD", word))
            elif word == "OR" or word == "|":
                toks.append(_Tok("OR"))
            elif word == "AND":
                pass
            else:
                toks.append(_Tok("WORD", word.lstrip("+") or word))
            i = j
    return toks


# ----- parser ---------------------------------------------------------------------------------
class _Parser:
    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.pos = 0

    def peek(self) -> _Tok | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def next(self) -> _Tok:
        tok = self.toks[self.pos]
        self.pos += 1
        return tok

    def parse_and(self, fieldname: str | None, closer: str | None) -> And:
        items: list[Node] = []
        while True:
            tok = self.peek()
            if tok is None:
                break
            if tok.kind == closer:
                self.next()
                break
            if tok.kind in ("RPAREN", "RBRACE", "OR"):
                self.next()  # stray closer / dangling OR: ignore like Gmail does
                continue
            items.append(self.parse_or(fieldname))
        return And(items)

    def parse_or(self, fieldname: str | None) -> Node:
        first = self.parse_unary(fieldname)
        alts = [first]
        while (tok := self.peek()) is not None and tok.kind == "OR":
            self.next()
            nxt = self.peek()
            if nxt is None or nxt.kind in ("RPAREN", "RBRACE"):
                break
            alts.append(self.parse_unary(fieldname))
        return alts[0] if len(alts) == 1 else Or(alts)

    def parse_unary(self, fieldname: str | None) -> Node:
        tok = self.peek()
        if tok is not None and tok.kind == "NEG":
            self.next()
            if self.peek() is None:
                return And([])
            return Not(self.parse_unary(fieldname))
        return self.parse_primary(fieldname)

    def parse_primary(self, fieldname: str | None) -> Node:
        tok = self.next()
        if tok.kind == "LPAREN":
            return self.parse_and(fieldname, "RPAREN")
        if tok.kind == "LBRACE":
            group = self.parse_and(fieldname, "RBRACE")
            return Or(group.items)
        if tok.kind == "OPGROUP":
            return self.parse_and(tok.op, "RPAREN")
        if tok.kind == "OP":
            return Leaf(tok.op, tok.text)
        if tok.kind == "OPPHRASE":
            return Leaf(tok.op, tok.text, phrase=True)
        if tok.kind == "PHRASE":
            return Leaf(fieldname, tok.text, phrase=True)
        return Leaf(fieldname, tok.text)


def parse(q: str) -> And:
    return _Parser(_tokenize(q or "")).parse_and(None, None)


def mentions_spam_or_trash(node: Node) -> bool:
    """True if the query names spam/trash/anywhere (then Gmail does not hide those messages)."""
    if isinstance(node, Leaf):
        return node.op in ("in", "label", "is") and node.value.lower() in ("spam", "trash", "anywhere")
    if isinstance(node, Not):
        return mentions_spam_or_trash(node.node)
    return any(mentions_spam_or_trash(item) for item in node.items)


# ----- evaluation -----------------------------------------------------------------------------
@dataclass
class SearchDoc:
    """The searchable view of one stored message (immutable; labels are passed separately)."""

    subject: str
    from_: str
    to: str
    cc: str
    bcc: str
    delivered_to: str
    list_id: str
    body: str
    filenames: list[str]
    message_id: str
    internal_ms: int
    size: int
    has_attachment: bool

    @cached_property
    def fulltext(self) -> str:
        return "\n".join([self.subject, self.from_, self.to, self.cc, self.bcc, self.body, *self.filenames]).casefold()

    @cached_property
    def fulltext_tokens(self) -> list[str]:
        return _WORD.findall(self.fulltext)


@dataclass
class EvalContext:
    label_names: dict[str, str]  # label id -> display name
    now_ms: int
    me: str


def _tokens_contain(hay: list[str], needle: list[str]) -> bool:
    if not needle:
        return True
    first, size = needle[0], len(needle)
    return any(hay[i] == first and hay[i : i + size] == needle for i in range(len(hay) - size + 1))


def text_match(haystack: str, needle: str, hay_tokens: list[str] | None = None) -> bool:
    """Word-wise, case-insensitive match (substring match for CJK text, which has no spaces)."""
    n = needle.casefold().strip()
    if not n:
        return True
    hay = haystack.casefold()
    if _CJK.search(n):
        return n in hay
    words = _WORD.findall(n)
    if not words:
        return n in hay
    return _tokens_contain(hay_tokens if hay_tokens is not None else _WORD.findall(hay), words)


def _normalize_label(name: str) -> str:
    return re.sub(r"[\s/]+", "-", name.strip().casefold())


def _parse_day_ms(value: str) -> int | None:
    if value.isdigit() and len(value) > 8:
        return int(value) * 1000
    m = re.fullmatch(r"(\d{4})[/-](\d{1,2})[/-](\d{1,2})", value)
    if not m:
        return None
    try:
        day = datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=_PACIFIC)
    except ValueError:
        return None
    return int(day.astimezone(UTC).timestamp() * 1000)


_PERIOD_MS = {"h": 3_600_000, "d": 86_400_000, "w": 7 * 86_400_000, "m": 30 * 86_400_000, "y": 365 * 86_400_000}


def _parse_period_ms(value: str) -> int | None:
    m = re.fullmatch(r"(\d+)([hdwmy])", value.lower())
    return int(m[1]) * _PERIOD_MS[m[2]] if m else None


def _parse_size(value: str) -> int | None:
    m = re.fullmatch(r"(\d+)([km]?)b?", value.lower())
    if not m:
        return None
    return int(m[1]) * {"": 1, "k": 1024, "m": 1024 * 1024}[m[2]]


def _strip_brackets(value: str) -> str:
    return value.strip().strip("<>").strip().casefold()


def _address_match(header: str, value: str, ctx: EvalContext) -> bool:
    v = value.casefold().strip()
    if v == "me":
        v = ctx.me.casefold()
    return bool(v) and v in header.casefold()


def _label_match(value: str, labels: set[str], ctx: EvalContext) -> bool:
    wanted = _normalize_label(value)
    for label_id in labels:
        if label_id.casefold() == wanted or _normalize_label(ctx.label_names.get(label_id, "")) == wanted:
            return True
    return False


def _eval_leaf(leaf: Leaf, doc: SearchDoc, labels: set[str], ctx: EvalContext) -> bool:
    op, value = leaf.op, leaf.value
    v = value.lower()
    if op is None:
        return text_match(doc.fulltext, value, doc.fulltext_tokens)
    if op == "from":
        return _address_match(doc.from_, value, ctx)
    if op == "to":
        return any(_address_match(h, value, ctx) for h in (doc.to, doc.cc, doc.bcc))
    if op == "cc":
        return _address_match(doc.cc, value, ctx)
    if op == "bcc":
        return _address_match(doc.bcc, value, ctx)
    if op == "deliveredto":
        return _address_match(doc.delivered_to or doc.to, value, ctx)
    if op == "list":
        return _address_match(doc.list_id, value, ctx)
    if op == "subject":
        return text_match(doc.subject, value)
    if op == "label":
        return _label_match(value, labels, ctx)
    if op == "in":
        if v == "anywhere":
            return True
        mapping = {"drafts": "DRAFT", "draft": "DRAFT", "sent": "SENT", "inbox": "INBOX"}
        return mapping.get(v, v.upper()) in labels
    if op == "is":
        if v == "unread":
            return "UNREAD" in labels
        if v == "read":
            return "UNREAD" not in labels
        if v in ("starred", "important", "sent", "draft", "spam", "trash", "inbox", "chat"):
            return v.upper() in labels
        return False
    if op == "category":
        return CATEGORIES.get(v, "CATEGORY_" + v.upper()) in labels
    if op == "has":
        if v == "attachment":
            return doc.has_attachment
        if v == "userlabels":
            return any(label.startswith("Label_") for label in labels)
        if v == "nouserlabels":
            return not any(label.startswith("Label_") for label in labels)
        return False
    if op == "filename":
        return any(v in name.casefold() for name in doc.filenames)
    if op == "rfc822msgid":
        return bool(doc.message_id) and _strip_brackets(doc.message_id) == _strip_brackets(value)
    if op in ("after", "newer", "before", "older"):
        ms = _parse_day_ms(value)
        if ms is None:
            return False
        return doc.internal_ms >= ms if op in ("after", "newer") else doc.internal_ms < ms
    if op in ("newer_than", "older_than"):
        period = _parse_period_ms(value)
        if period is None:
            return False
        cutoff = ctx.now_ms - period
        return doc.internal_ms >= cutoff if op == "newer_than" else doc.internal_ms < cutoff
    if op in ("larger", "size"):
        size = _parse_size(value)
        return size is not None and doc.size > size
    if op == "smaller":
        size = _parse_size(value)
        return size is not None and doc.size < size
    return text_match(doc.fulltext, f"{op} {value}", doc.fulltext_tokens)


def evaluate(node: Node, doc: SearchDoc, labels: set[str], ctx: EvalContext) -> bool:
    if isinstance(node, Leaf):
        return _eval_leaf(node, doc, labels, ctx)
    if isinstance(node, Not):
        return not evaluate(node.node, doc, labels, ctx)
    if isinstance(node, And):
        return all(evaluate(item, doc, labels, ctx) for item in node.items)
    return any(evaluate(item, doc, labels, ctx) for item in node.items)
