"""Property-based fuzzing at scale: the properties of tests/fuzz (stream readers, the four wire mappers, partial
JSON of tool arguments, the real providers on cut streams, the Markdown renderer, the settings and mcp.json
loaders, the JSON import) run with many more cases than the normal test run, from fresh random seeds.

    python bench/fuzz.py                      # >= 100,000 cases over all targets (~20-30 min on 2 busy cores)
    python bench/fuzz.py --cases 20000        # fewer
    python bench/fuzz.py --only markdown --only json_import
    python bench/fuzz.py --json rows.json     # rows per target: cases run (>= planned) and failures (== 0)

Each target's share of `--cases` is in proportion to its cases in the normal run (tests/fuzz declares them), so
slow targets (a provider over HTTP, a SQLite store per case, a painted document) get fewer. The cases counted are
those whose property body ran (tests/fuzz/support.py `ran`), shrinking included. A failure prints hypothesis's
falsifying example and a `@reproduce_failure` blob; the target's failures row is then unmet.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MODULES = ["test_stream_readers", "test_wire_mappers", "test_partial_json", "test_provider_replay", "test_markdown",
           "test_config_loaders", "test_json_import"]
DEFAULT_CASES = 100_000


def _load(names: list[str]) -> list:
    return [importlib.import_module(f"tests.fuzz.{name}") for name in names]


def _properties(module) -> list:
    return [getattr(module, name) for name in dir(module) if name.startswith("test_") and hasattr(getattr(module, name), "hypothesis")]


def _row(measure: str, value: float, unit: str, target: str, met: bool) -> dict:
    return {"measure": measure, "value": value, "unit": unit, "reference": None, "reference_value": None, "ratio": None,
            "target": target, "met": met}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=DEFAULT_CASES, help=f"cases over all targets (default {DEFAULT_CASES:,})")
    parser.add_argument("--only", action="append", default=[], help="run this target only (repeatable)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the cases")
    parser.add_argument("--json", type=Path, help="write the result rows there as a JSON list")
    args = parser.parse_args()
    cases = args.cases // 10 if args.quick else args.cases

    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    home = tempfile.TemporaryDirectory(prefix="fuzz-bench-home-")
    os.environ["DESKTOP_COPILOT_HOME"] = home.name
    logging.getLogger("desktop_copilot").setLevel(logging.CRITICAL)  # failures the properties provoke on purpose
    print(f"{os.cpu_count()} CPUs, load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())} at start", flush=True)

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])  # the Markdown properties render and paint documents
    from tests.fuzz import support

    modules = _load(MODULES)  # once with the normal plan, to learn each target's share
    planned_normally = Counter(support.PLANNED)
    targets = [t for t in planned_normally if not args.only or t in args.only]
    if not targets:
        parser.error(f"no such target; the targets are {', '.join(planned_normally)}")
    scale = cases / sum(planned_normally[t] for t in targets)
    support.configure(scale)
    modules = [importlib.reload(module) for module in modules]
    print(f"{cases:,} cases planned over {len(targets)} targets ({scale:.1f} x the normal run's)\n", flush=True)

    failures: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    started = time.monotonic()
    for module in modules:
        for prop in _properties(module):
            target = prop.fuzz_target
            if target not in targets:
                continue
            before, began = support.CASES[target], time.monotonic()
            try:
                prop()
            except Exception:  # noqa: BLE001 - a falsified property: reported, and counted against its target
                failures[target] += 1
                print(f"FAILED {module.__name__}.{prop.__name__}:\n{traceback.format_exc()}", flush=True)
            seconds[target] += time.monotonic() - began
            print(f"  {prop.__name__}: {support.CASES[target] - before:,} cases of {target} in {time.monotonic() - began:.0f} s",
                  flush=True)

    rows, total = [], 0
    print(f"\n{'target':<26}{'cases':>10}{'planned':>10}{'failures':>10}{'seconds':>10}")
    for target in targets:
        ran, planned = support.CASES[target], support.PLANNED[target]
        total += ran
        print(f"{target:<26}{ran:>10,}{planned:>10,}{failures[target]:>10}{seconds[target]:>10.0f}")
        rows.append(_row(f"cases run: {target}", ran, "cases", f">= {planned}", ran >= planned))
        rows.append(_row(f"failures: {target}", failures[target], "failures", "== 0", failures[target] == 0))
    print(f"{'all targets':<26}{total:>10,}{sum(support.PLANNED[t] for t in targets):>10,}{sum(failures.values()):>10}"
          f"{time.monotonic() - started:>10.0f}")
    rows.append(_row("cases run: all targets", total, "cases", f">= {cases}", total >= cases))
    rows.append(_row("failures: all targets", sum(failures.values()), "failures", "== 0", not failures))
    print(f"\n{os.cpu_count()} CPUs, load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    del app
    home.cleanup()
    return 0 if all(row["met"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
