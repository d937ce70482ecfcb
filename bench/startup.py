"""Time from process start to the first painted window, and peak RSS: a bare PySide6 window vs Desktop Copilot."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).with_name("_startup_child.py")
MODES = ("bare", "copilot")


def launch(mode: str, env: dict[str, str]) -> dict:
    started = time.time()
    done = subprocess.run(
        [sys.executable, str(CHILD), mode, repr(started)],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{mode} child failed ({done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
    result = json.loads(lines[-1])
    result["exit_s"] = time.time() - started
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="timed launches of each kind, interleaved (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-home-") as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TAVILY_", "DESKTOP_COPILOT_"))}
        env.update(
            QT_QPA_PLATFORM="offscreen", DESKTOP_COPILOT_HOME=home, ANTHROPIC_API_KEY="sk-ant-bench-fake",
            ANTHROPIC_BASE_URL="http://127.0.0.1:9", PYTHONPATH=str(ROOT),
        )
        for mode in MODES:  # warm-up: .pyc files, the OS file cache, the app's data directory
            launch(mode, env)
        results: dict[str, list[dict]] = {mode: [] for mode in MODES}
        for _ in range(args.repeat):
            for mode in MODES:
                results[mode].append(launch(mode, env))
    print(f"{args.repeat} launches each, interleaved, after one warm-up each; Qt platform offscreen, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    medians = {}
    for mode, runs in results.items():
        shown = [r["shown_s"] * 1e3 for r in runs]
        medians[mode] = {
            "shown_ms": statistics.median(shown),
            "cpu_ms": statistics.median(r["cpu_s"] * 1e3 for r in runs),
            "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in runs),
        }
        m = medians[mode]
        imported = sum(r["anthropic_imported"] for r in runs)
        print(f"  {mode:<8} first frame painted after {m['shown_ms']:6.0f} ms median (min {min(shown):.0f}, max {max(shown):.0f}),"
              f" {m['cpu_ms']:5.0f} ms CPU; peak RSS {m['peak_rss_mb']:5.1f} MB;"
              f" anthropic imported before it in {imported}/{len(runs)} runs")
    bare, app = medians["bare"], medians["copilot"]
    print(f"  ratio copilot / bare: time to window {app['shown_ms'] / bare['shown_ms']:.1f}x (+{app['shown_ms'] - bare['shown_ms']:.0f} ms),"
          f" CPU {app['cpu_ms'] / bare['cpu_ms']:.1f}x, peak RSS {app['peak_rss_mb'] / bare['peak_rss_mb']:.1f}x"
          f" (+{app['peak_rss_mb'] - bare['peak_rss_mb']:.0f} MB)")
    print(json.dumps(medians))


if __name__ == "__main__":
    main()
