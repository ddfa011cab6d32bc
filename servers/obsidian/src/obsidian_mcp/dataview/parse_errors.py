"""Turning lark's "unexpected token" into a sentence: what was expected, what was found, where."""

from __future__ import annotations

from lark import UnexpectedCharacters, UnexpectedToken

_EXPRESSION_START = {
    "NAME", "NUMBER", "STRING", "TRUE", "FALSE", "NULL", "LINK", "DATE_LIT", "DUR_LIT",
    "LPAR", "LSQB", "LBRACE", "BANG", "MINUS",
}  # fmt: skip
_SOURCE_START = {"TAG", "STRING", "LINK", "OUTGOING", "CSV", "MINUS", "BANG", "LPAR"}
_OPERATORS = {"PLUS", "MINUS", "MUL_OP", "CMP_OP", "BOOL_OP", "DOT", "LSQB", "LPAR"}
_COMMANDS = {"WHERE", "SORT", "GROUP_BY", "FLATTEN", "LIMIT"}
_QUERY_TYPES = {"TABLE", "LIST", "TASK", "CALENDAR"}
_NAMES = {
    "COMMA": "','",
    "RPAR": "')'",
    "RSQB": "']'",
    "RBRACE": "'}'",
    "COLON": "':'",
    "AS": "AS",
    "SORT_DIR": "ASC or DESC",
    "WITHOUT_ID": "WITHOUT ID",
    "FROM": "FROM",
    "LAMBDA": "a lambda",
    "NAME": "a name",
    "CMP_OP": "a comparison",
    "STRING": "a string",
    "LINK": "a [[link]]",
    "$END": "end of query",
}


def _expected(terminals: set[str]) -> str:
    terminals = set(terminals)
    phrases: list[str] = []
    if {"TABLE", "LIST", "TASK"} <= terminals:
        phrases.append("a query type (TABLE, LIST or TASK)")
        terminals -= _QUERY_TYPES
    if "TAG" in terminals:
        phrases.append('a source (#tag, "folder", [[note]] or outgoing([[note]]))')
        terminals -= _SOURCE_START
    if {"NAME", "NUMBER"} <= terminals:
        phrases.append("an expression")
        terminals -= _EXPRESSION_START
    if terminals & {"CMP_OP", "BOOL_OP"}:
        phrases.append("an operator")
        terminals -= _OPERATORS
    if terminals >= _COMMANDS:
        phrases.append("a data command (WHERE, SORT, GROUP BY, FLATTEN, LIMIT)")
        terminals -= _COMMANDS
    end = "$END" in terminals
    terminals.discard("$END")
    phrases += sorted(_NAMES.get(name, name) for name in terminals)
    if end:
        phrases.append("end of query")
    if not phrases:
        return "something else"
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " or " + phrases[-1]


def _unterminated(text: str, position: int) -> str | None:
    if text.startswith('"', position) and '"' not in text[position + 1 :].replace('\\"', ""):
        return "unterminated string: a closing '\"' is missing"
    if text.startswith(("[[", "![["), position) and "]]" not in text[position:]:
        return "unterminated link: a closing ']]' is missing"
    return None


def describe_unexpected(exc: UnexpectedToken | UnexpectedCharacters, text: str) -> tuple[str, int]:
    """(message, 0-based position) for a lark parse failure."""
    if isinstance(exc, UnexpectedCharacters):
        position = exc.pos_in_stream or 0
        return _unterminated(text, position) or f"unexpected character {text[position]!r}", position
    token = exc.token
    expected = set(exc.accepts or exc.expected)
    if token.type == "$END":
        position = token.end_pos if token.end_pos is not None else len(text.rstrip())
        return f"expected {_expected(expected)} but the query ended", position
    position = token.start_pos or 0
    if message := _unterminated(text, position):
        return message, position
    found = f"{str(token)!r}"
    if token.type == "FROM" and "WHERE" in expected:
        return "FROM must come right after the query type (and only once)", position
    if token.type in ("FROM", "WHERE", "LIMIT", "FLATTEN") and "NAME" in expected:
        hint = f'; a field named {str(token)!r} is row["{token}"]'
        return f"expected {_expected(expected)} but found the keyword {found}{hint}", position
    if token.type in _QUERY_TYPES:
        return f"a query has one query type; found {str(token).upper()} again", position
    if {"TABLE", "LIST", "TASK"} <= expected:
        return f"expected a query type (TABLE, LIST or TASK) but found {found}", position
    return f"expected {_expected(expected)} but found {found}", position
