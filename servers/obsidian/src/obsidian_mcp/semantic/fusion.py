"""Hybrid ranking: keyword (BM25) and vector rankings fused, with exact matches kept on top.

Pure functions over plain lists of (path, score), best first. The intended flow of
`search_notes(mode="hybrid")`:

1. Run the keyword search as today (every word must match): `keyword`, with its `total`.
2. If it found fewer than `FALLBACK_BELOW` notes, run `any_word_query(query)` through the same
   keyword search (a ranked OR of the question's content words, stop-words removed, light
   stemming as prefixes): `fallback`. BM25 ranks notes having more, and rarer, of the words first.
3. Run the vector search for the raw query: `semantic`.
4. `fuse(keyword, semantic, fallback=fallback, keyword_total=total)`.

Fusion is weighted reciprocal rank fusion, score(d) = Σ weight / (k + rank(d)), k = 60: only
ranks matter, so BM25 and cosine scales need no calibration. Any-word fallback hits weigh less
than all-words hits: a note matching "get", "back" and "buying" is weak evidence.

Exact phrases and rare words must keep their note first, whatever the vectors think. A keyword
hit is *pinned* (placed above every unpinned hit, in fused order) when either
* the all-words search found only a few notes (`pin_max_hits`, 3): the query words occur
  together almost nowhere, so where they do is what was asked for (a needle); or
* it is the keyword rank 1 and its BM25 score is at least `strong_ratio` (2×) the rank-2 score:
  a title or phrase hit standing far above the rest; or
* its file name or title (when the caller passes `titles`) is the query itself, word for word
  ("garden shed" finds `Projects/Garden Shed.md` first even where the words are common).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Ranking = Sequence[tuple[str, float]]
"""(path, score) pairs, best first; scores higher-is-better (BM25 as `search_notes` reports it)."""

FALLBACK_BELOW = 3  # all-words hits below which the any-word fallback runs
MAX_FALLBACK_TERMS = 16

# Function words, question words and verbs too generic to search for.
_STOP_TEXT = """
    a about above after again against all also am an and any are aren as at be because been before
    being below between both but by can cannot could couldn did didn do does doesn doing don down
    during each either else ever every few for from further get gets getting got had has have having
    he her here hers herself him himself his how however i if in into is isn it its itself just let
    like make makes me might mine more most much must my myself need needs no nor not now of off on
    once only or other ought our ours ourselves out over own please same shall she should so some
    still such than that the their theirs them themselves then there these they this those though
    through to too under until up upon us use used using very want wants was way we were what when
    where whether which while who whom whose why will with within without would yet you your yours
    yourself yourselves anyone anything someone something thing things one ones really back going
    way ways able kind sort lot lots maybe new
    """
STOP_WORDS = frozenset(_STOP_TEXT.split())

_TOKEN = re.compile(r"[^\W_]+")
_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_MIN_STEM = 3


def fold(text: str) -> str:
    """Lower case without diacritics, as the keyword index (`unicode61 remove_diacritics 2`)."""
    return _MARKS.sub("", unicodedata.normalize("NFD", text)).lower()


def content_words(question: str) -> list[str]:
    """The question's folded words without stop-words and one-letter words, first occurrence order."""
    words = [w for w in _TOKEN.findall(fold(question)) if len(w) > 1 and w not in STOP_WORDS]
    return list(dict.fromkeys(words))


def stem(word: str) -> str:
    """A crude English stem used as a prefix: `refunds` → `refund`, `batteries` → `batter`,
    `deleted` → `delet`, `charging` → `charg`. Words of digits and short words are kept whole."""
    if word.isdigit() or len(word) <= 4:
        return word
    for suffix in ("ies", "ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            if suffix == "es" and not word.endswith(("ses", "xes", "zes", "ches", "shes")):
                return word[:-1]
            if suffix == "s" and word.endswith("ss"):
                return word
            return word[: -len(suffix)]
    return word


def any_word_query(question: str, *, prefixes: bool = True, max_terms: int = MAX_FALLBACK_TERMS) -> str | None:
    """An OR of the question's content words for the keyword search, e.g. `"money" OR "refund"*`;
    None when no content word is left. The terms are quoted tokens (with `*` for prefixes), valid
    both in `search_notes`' query language and as an FTS5 MATCH expression."""
    terms: list[str] = []
    for word in content_words(question)[:max_terms]:
        root = stem(word) if prefixes else word
        term = f'"{root}"*' if prefixes and len(word) > 4 else f'"{word}"'
        if term not in terms:
            terms.append(term)
    return " OR ".join(terms) if terms else None


def needs_fallback(keyword_total: int, minimum: int = FALLBACK_BELOW) -> bool:
    """Whether the all-words search found too little, so the any-word query should run too."""
    return keyword_total < minimum


@dataclass(frozen=True)
class FusionParams:
    k: float = 60.0
    keyword_weight: float = 1.0
    fallback_weight: float = 0.3
    semantic_weight: float = 1.0
    pin_max_hits: int = 3  # an all-words search with at most this many hits pins them all
    strong_ratio: float = 2.0  # keyword rank 1 pinned when its score is this many times rank 2's


@dataclass(frozen=True)
class FusedHit:
    path: str
    score: float  # fused score; pinned hits have 1 + their fused score
    keyword_rank: int | None  # 1-based ranks in each input, None when absent
    fallback_rank: int | None
    semantic_rank: int | None
    pinned: bool


def _words(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


def pinned_paths(
    keyword: Ranking,
    keyword_total: int | None = None,
    params: FusionParams | None = None,
    *,
    query: str | None = None,
    titles: Mapping[str, str] | None = None,
) -> list[str]:
    """The keyword hits that must stay on top, in keyword order (see the module docstring)."""
    params = params or FusionParams()
    total = len(keyword) if keyword_total is None else keyword_total
    if not keyword:
        return []
    if total <= params.pin_max_hits:
        return [path for path, _ in keyword[: params.pin_max_hits]]
    pinned: list[str] = []
    first, second = keyword[0][1], keyword[1][1] if len(keyword) > 1 else 0.0
    if first > 0 and first >= params.strong_ratio * max(second, 0.0):
        pinned.append(keyword[0][0])
    wanted = _words(query) if query is not None else []
    if wanted:
        for path, _ in keyword:
            names = [path.rsplit("/", 1)[-1].removesuffix(".md"), (titles or {}).get(path, "")]
            if path not in pinned and any(_words(name) == wanted for name in names):
                pinned.append(path)
    return pinned


def fuse(
    keyword: Ranking,
    semantic: Ranking,
    *,
    fallback: Ranking = (),
    keyword_total: int | None = None,
    query: str | None = None,
    titles: Mapping[str, str] | None = None,
    params: FusionParams | None = None,
    limit: int | None = None,
) -> list[FusedHit]:
    """One ranking from the all-words keyword ranking, the any-word fallback ranking and the
    vector ranking (each best first). `keyword_total`: how many notes the all-words search matched
    in all (`keyword` may be cut at a limit); `query` and `titles` ({path: title} of the keyword
    hits) let an exact title match be pinned. Ties are broken by path, so the result is stable."""
    params = params or FusionParams()
    ranks: dict[str, list[int | None]] = {}
    for slot, ranking in enumerate((keyword, fallback, semantic)):
        for rank, (path, _) in enumerate(ranking, 1):
            entry = ranks.setdefault(path, [None, None, None])
            if entry[slot] is None:
                entry[slot] = rank
    weights = (params.keyword_weight, params.fallback_weight, params.semantic_weight)
    pinned = set(pinned_paths(keyword, keyword_total, params, query=query, titles=titles))
    hits: list[FusedHit] = []
    for path, (kw, fb, sem) in ranks.items():
        score = sum(w / (params.k + r) for w, r in zip(weights, (kw, fb, sem), strict=True) if r is not None)
        is_pinned = path in pinned
        hits.append(FusedHit(path, score + (1.0 if is_pinned else 0.0), kw, fb, sem, is_pinned))
    hits.sort(key=lambda hit: (-hit.score, hit.path))
    return hits[:limit] if limit is not None else hits
