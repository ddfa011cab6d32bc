"""String functions: containsword, regextest, regexmatch, regexreplace, replace, lower, upper,
split, startswith, endswith, padleft, padright, substring, truncate.

Regular expressions are Python's `re` (JavaScript's syntax mostly agrees); `regexreplace`
accepts JavaScript's `$1` / `$&` references in the replacement.
"""

from __future__ import annotations

import re
from functools import lru_cache

from obsidian_mcp.dataview.errors import EvalError
from obsidian_mcp.dataview.function_builder import Builtin, DataviewFunction, Impl
from obsidian_mcp.dataview.values import Value


@lru_cache(maxsize=256)
def _regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise EvalError(f"invalid regular expression {pattern!r}: {exc}") from None


def _js_replacement(replacement: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(replacement):
        char = replacement[index]
        following = replacement[index + 1 : index + 2]
        if char == "$" and following == "$":
            out.append("$")
            index += 2
        elif char == "$" and following == "&":
            out.append(r"\g<0>")
            index += 2
        elif char == "$" and following.isdigit():
            digits = re.match(r"\d{1,2}", replacement[index + 1 :])
            assert digits is not None
            out.append(rf"\g<{digits.group(0)}>")
            index += 1 + len(digits.group(0))
        else:
            out.append("\\\\" if char == "\\" else char)
            index += 1
    return "".join(out)


def _pair(name: str, impl: Impl, positions: tuple[int, ...] = (0, 1)) -> DataviewFunction:
    function = DataviewFunction(name).vectorize(2, *positions)
    function.on("string", "string")(impl)
    function.on("null", "*")(lambda c, n, v: None)
    function.on("*", "null")(lambda c, v, n: None)
    return function


containsword = _pair(
    "containsword",
    lambda c, text, word: _regex(r"\b" + re.escape(word) + r"\b", re.IGNORECASE).search(text) is not None,
)
startswith = _pair("startswith", lambda c, text, prefix: text.startswith(prefix))
endswith = _pair("endswith", lambda c, text, suffix: text.endswith(suffix))

regextest = DataviewFunction("regextest").vectorize(2, 0, 1)
regextest.on("string", "string")(lambda c, pattern, text: _regex(pattern).search(text) is not None)
regextest.on("null", "*")(lambda c, n, v: False)
regextest.on("*", "null")(lambda c, v, n: False)


def _match(pattern: str, text: str) -> bool:
    _regex(pattern)  # report a bad pattern as written
    if not pattern.startswith("^") and not pattern.endswith("$"):
        pattern = f"^{pattern}$"
    return _regex(pattern).search(text) is not None


regexmatch = DataviewFunction("regexmatch").vectorize(2, 0, 1)
regexmatch.on("string", "string")(lambda c, pattern, text: _match(pattern, text))
regexmatch.on("null", "*")(lambda c, n, v: False)
regexmatch.on("*", "null")(lambda c, v, n: False)


def _triple(name: str, impl: Impl) -> DataviewFunction:
    function = DataviewFunction(name).vectorize(3, 0, 1, 2)
    function.on("string", "string", "string")(impl)
    function.on("null", "*", "*")(lambda c, a, b, d: None)
    function.on("*", "null", "*")(lambda c, a, b, d: None)
    function.on("*", "*", "null")(lambda c, a, b, d: None)
    return function


regexreplace = _triple(
    "regexreplace", lambda c, text, pattern, replacement: _regex(pattern).sub(_js_replacement(replacement), text)
)
replace = _triple("replace", lambda c, text, old, new: text.replace(old, new))

lower = DataviewFunction("lower").vectorize(1, 0)
lower.on("string")(lambda c, text: text.lower())
lower.on("null")(lambda c, n: None)
upper = DataviewFunction("upper").vectorize(1, 0)
upper.on("string")(lambda c, text: text.upper())
upper.on("null")(lambda c, n: None)


def _split(text: str, delimiter: str, limit: float | None = None) -> list[Value]:
    parts: list[Value] = [part or "" for part in _regex(delimiter).split(text)]
    return parts if limit is None else parts[: max(0, int(limit))]


split = DataviewFunction("split")
split.on("string", "string")(lambda c, text, delimiter: _split(text, delimiter))
split.on("string", "string", "number")(lambda c, text, delimiter, limit: _split(text, delimiter, limit))
for _types in (("null", "*"), ("*", "null"), ("*", "*", "null"), ("*", "null", "*"), ("null", "*", "*")):
    split.on(*_types)(lambda c, *args: None)


def _pad(text: str, width: float, padding: str, left: bool) -> str:
    missing = int(width) - len(text)
    if missing <= 0 or not padding:
        return text
    fill = (padding * (missing // len(padding) + 1))[:missing]
    return fill + text if left else text + fill


def _padder(name: str, left: bool) -> DataviewFunction:
    function = DataviewFunction(name).vectorize(2, 0, 1).vectorize(3, 0, 1, 2)
    function.on("string", "number")(lambda c, text, width: _pad(text, width, " ", left))
    function.on("string", "number", "string")(lambda c, text, width, padding: _pad(text, width, padding, left))
    for types in (("null", "*"), ("*", "null"), ("null", "*", "*"), ("*", "null", "*"), ("*", "*", "null")):
        function.on(*types)(lambda c, *args: None)
    return function


padleft = _padder("padleft", True)
padright = _padder("padright", False)


def _substring(text: str, start: float, end: float | None = None) -> str:
    """JavaScript's `substring`: bounds clamp to the string, a reversed pair is swapped."""
    low = min(max(int(start), 0), len(text))
    high = len(text) if end is None else min(max(int(end), 0), len(text))
    return text[min(low, high) : max(low, high)]


substring = DataviewFunction("substring").vectorize(2, 0, 1).vectorize(3, 0, 1, 2)
substring.on("string", "number")(lambda c, text, start: _substring(text, start))
substring.on("string", "number", "number")(lambda c, text, start, end: _substring(text, start, end))
for _types in (("null", "*"), ("*", "null"), ("null", "*", "*"), ("*", "null", "*"), ("*", "*", "null")):
    substring.on(*_types)(lambda c, *args: None)


def _truncate(text: str, length: float, suffix: str = "...") -> str:
    if len(text) > length - len(suffix):
        return text[: max(0, int(length) - len(suffix))] + suffix
    return text


truncate = DataviewFunction("truncate").vectorize(2, 0, 1).vectorize(3, 0, 1, 2)
truncate.on("string", "number", "string")(lambda c, text, length, suffix: _truncate(text, length, suffix))
truncate.on("string", "number")(lambda c, text, length: _truncate(text, length))
for _types in (("null", "*"), ("*", "null"), ("null", "*", "*"), ("*", "null", "*"), ("*", "*", "null")):
    truncate.on(*_types)(lambda c, *args: None)

FUNCTIONS: dict[str, Builtin] = {
    "containsword": containsword,
    "regextest": regextest,
    "regexmatch": regexmatch,
    "regexreplace": regexreplace,
    "replace": replace,
    "lower": lower,
    "upper": upper,
    "split": split,
    "startswith": startswith,
    "endswith": endswith,
    "padleft": padleft,
    "padright": padright,
    "substring": substring,
    "truncate": truncate,
}
