"""Shared by the fuzz tests and bench/fuzz.py: hypothesis settings the bench can scale, a count of the cases each
target ran, and strategies for JSON as a hostile server could send it."""

from __future__ import annotations

import itertools
import math
import string
from collections import Counter
from collections.abc import Callable
from typing import Any, AnyStr

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

CASES: Counter[str] = Counter()
"""Target -> property bodies run so far (each example, explicit ones and shrinking included)."""
PLANNED: Counter[str] = Counter()
"""Target -> examples its properties ask for (scaled as configured)."""

_scale = 1.0
_randomize = False

settings.register_profile(
    "fuzz",
    deadline=None,  # a shared, noisy machine: timing is never a failure
    database=None,  # nothing written into the working tree
    derandomize=True,  # the normal run tries the same cases each time
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                           HealthCheck.large_base_example],
)
settings.register_profile("fuzz-bench", settings.get_profile("fuzz"), derandomize=False)


def configure(scale: float, *, randomize: bool = True) -> None:
    """For bench/fuzz.py, before it (re)imports the test modules: every property runs `scale` times its declared
    number of examples, from fresh random seeds. The plan is counted again as the modules are imported."""
    global _scale, _randomize
    _scale, _randomize = scale, randomize
    PLANNED.clear()


def scaled(examples: int) -> int:
    return max(1, math.ceil(examples * _scale))


def fuzz_settings(target: str, examples: int) -> Callable[[Callable], Callable]:
    """`examples` cases of `target` in the normal run (derandomized); scaled when the bench configured a scale. The
    property is marked with its target (`fuzz_target`), which its body counts with `ran`."""
    PLANNED[target] += scaled(examples)
    chosen = settings(settings.get_profile("fuzz-bench" if _randomize else "fuzz"), max_examples=scaled(examples))

    def apply(test: Callable) -> Callable:
        test = chosen(test)
        test.fuzz_target = target
        return test

    return apply


def ran(target: str) -> None:
    """Count one case of `target` (called first thing in each property body)."""
    CASES[target] += 1


# --- strategies --------------------------------------------------------------------------------------------------

any_text = st.text(st.characters(exclude_categories=()), max_size=40)
"""Any code points, lone surrogates included (what a JSON "\\ud83d" escape decodes to)."""
short_text = st.text(string.ascii_letters + string.digits + "_-.:/ 你好🌍", max_size=12)
json_scalars = (st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats() | any_text | short_text)


def json_values(*words: str, max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Any value `json.loads` can return (NaN, infinities and lone surrogates included); `words` (a wire's field
    names and type values) are likely as keys and strings, so garbage lands where a mapper looks."""
    vocabulary = st.sampled_from(words) if words else short_text
    keys = vocabulary | short_text
    return st.recursive(
        json_scalars | vocabulary,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=max_leaves,
    )


def wire_garbage(*words: str) -> st.SearchStrategy[Any]:
    """What `mutate` puts into a recorded event: any scalar or `words` (a wire's field names and type values, so
    garbage lands where a mapper looks), or a small array or object of them (`mutate` walks the depth itself)."""
    vocabulary = st.sampled_from(words)
    leaf = json_scalars | vocabulary
    return leaf | st.lists(leaf, max_size=3) | st.dictionaries(vocabulary | short_text, leaf, max_size=3)


_STEP = st.integers(0, 5)


def mutate(draw: st.DrawFn, value: Any, replacement: st.SearchStrategy[Any]) -> Any:
    """A copy of `value` (JSON) with one thing changed along a random path: a branch or leaf replaced by
    `replacement` or left out, or a key of any text added. Call it inside a composite."""
    step = draw(_STEP)
    if isinstance(value, dict) and value and step:
        key = draw(st.sampled_from(sorted(value, key=repr)))
        out = dict(value)
        if step == 1:
            del out[key]
        elif step == 2:
            out[draw(short_text)] = draw(replacement)
        else:
            out[key] = mutate(draw, value[key], replacement)
        return out
    if isinstance(value, list) and value and step:
        where = draw(st.integers(0, len(value) - 1))
        out = list(value)
        if step == 1:
            del out[where]
        else:
            out[where] = mutate(draw, value[where], replacement)
        return out
    return draw(replacement)


def cuts(size: int, *, max_cuts: int = 12) -> st.SearchStrategy[list[int]]:
    """Sorted distinct offsets inside a body of `size` bytes where it is split into chunks."""
    if size < 2:
        return st.just([])
    return st.lists(st.integers(1, size - 1), max_size=max_cuts, unique=True).map(sorted)


def pieces(body: AnyStr, offsets: list[int]) -> list[AnyStr]:
    """`body` (bytes or text) split at `offsets`."""
    return [body[a:b] for a, b in itertools.pairwise([0, *offsets, len(body)])]
