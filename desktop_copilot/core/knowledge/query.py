"""A question as an FTS5 query for BM25 ranking (any word may match; Chinese, Japanese and Korean matched by
overlapping character pairs), and reciprocal-rank fusion of several rankings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from desktop_copilot.core.storage.search import cjk_char, segment

RRF_K = 60
"""The usual constant of reciprocal-rank fusion (Cormack et al., 2009): a passage's score is Σ 1 / (RRF_K + rank)."""

STOP_WORDS = frozenset("""
a an and are as at be been but by can could do does did for from had has have how i if in into is it its me my
no not of on or our so than that the their them then there these they this to was we were what when where which who
why will with would you your about should may might shall please tell show find give explain does
""".split())
CJK_STOP_CHARS = frozenset("的了是在和吗呢吧啊么什怎哪个这那有与及或就都也还把被请问")
"""Single characters too common to search by alone (a pair that holds one still counts)."""

_WORD = re.compile(r"\w+")


def _cjk_runs_and_words(question: str) -> tuple[list[str], list[str]]:
    runs: list[str] = []
    words: list[str] = []
    current = ""
    for token in _WORD.findall(segment(question)):
        if cjk_char().fullmatch(token):
            current += token
            continue
        if current:
            runs.append(current)
            current = ""
        words.append(token.lower())
    if current:
        runs.append(current)
    return runs, words


def bm25_query(question: str) -> str | None:
    """An FTS5 MATCH expression ranking passages by how many of the question's terms they hold: latin words (common
    English words dropped unless nothing else is left), and for CJK text every pair of neighbouring characters as a
    phrase (a lone character when the run is one long). None when there is nothing to search for."""
    runs, words = _cjk_runs_and_words(question)
    terms: list[str] = []
    kept = [w for w in words if w not in STOP_WORDS and len(w) > 1] or words
    terms += [f'"{w}"' for w in dict.fromkeys(kept)]
    for run in runs:
        if len(run) == 1:
            if run not in CJK_STOP_CHARS:
                terms.append(f'"{run}"')
            continue
        terms += [f'"{a} {b}"' for a, b in zip(run, run[1:]) if not (a in CJK_STOP_CHARS and b in CJK_STOP_CHARS)]
    terms = list(dict.fromkeys(terms))
    return " OR ".join(terms) or None


def fuse(rankings: Iterable[Sequence[int]], *, k: int = RRF_K) -> list[tuple[int, float]]:
    """Ids by reciprocal-rank fusion of several best-first rankings, best first."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])
