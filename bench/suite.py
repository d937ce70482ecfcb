"""Every benchmark of the performance issue in one command: runs each script with `--json`, one after another, and
prints one Markdown table of figures, references, ratios and whether each target is met.

    python bench/suite.py                  # everything (~15 min; the soak's 1,000 tool turns take ~5)
    python bench/suite.py --quick          # fewer rounds, for scripts whose --help lists --quick
    python bench/suite.py --only memory    # one script (repeat --only, or comma-separate, for several)

Each script runs as `python bench/NAME.py --json TMPFILE [--quick]` and writes a JSON list of rows
`{"measure", "value", "unit", "reference", "reference_value", "ratio", "target", "met"}`. A script that is missing,
has no --json option, fails or writes no rows becomes a row "failed: <reason>" and the suite goes on. The exit code is
non-zero if a target is unmet or a script failed. Each script's full output is kept in a log folder (printed at the end).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
SCRIPTS = ("startup", "memory", "stream_latency", "provider_cpu", "soak")
"""In the order they run; each must accept `--json PATH` and should accept `--quick`."""
ROW_KEYS = ("measure", "value", "unit", "reference", "reference_value", "ratio", "target", "met")


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def git_head() -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def options_of(script: Path, python: str) -> str:
    """The script's --help text ('' if it does not answer)."""
    try:
        done = subprocess.run([python, str(script), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        return ""
    return done.stdout if done.returncode == 0 else ""


def failed(name: str, reason: str) -> dict:
    return {"script": name, "measure": f"failed: {reason}", "value": None, "unit": "", "reference": None, "reference_value": None,
            "ratio": None, "target": "", "met": False, "failed": True}


def valid(rows) -> str | None:
    """Why `rows` is not a list of result rows (None: it is)."""
    if not isinstance(rows, list) or not rows:
        return "no rows written"
    for row in rows:
        if not isinstance(row, dict) or any(key not in row for key in ROW_KEYS):
            return f"a row lacks {[k for k in ROW_KEYS if not isinstance(row, dict) or k not in row]}: {str(row)[:120]}"
    return None


def run_script(name: str, args, logs: Path) -> tuple[list[dict], str]:
    """(rows, a note for the summary) of one script."""
    script = BENCH / f"{name}.py"
    if not script.exists():
        return [failed(name, f"bench/{name}.py is missing")], "missing"
    help_text = options_of(script, args.python)
    if "--json" not in help_text:
        return [failed(name, f"bench/{name}.py has no --json option")], "no --json"
    quick = args.quick and "--quick" in help_text
    out = logs / f"{name}.json"
    out.unlink(missing_ok=True)
    command = [args.python, str(script), "--json", str(out)] + (["--quick"] if quick else [])
    log = logs / f"{name}.log"
    started = time.perf_counter()
    print(f"running {' '.join(command[1:])} (log: {log}) ...", flush=True)
    with log.open("w") as sink:  # its own process group: a timeout stops the script and every process it started
        process = subprocess.Popen(command, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = process.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            code = None
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        except KeyboardInterrupt:
            os.killpg(process.pid, signal.SIGKILL)
            raise
    took = time.perf_counter() - started
    note = f"{took:.0f} s" + (", --quick" if quick else ", full (its --help lists no --quick)" if args.quick else "")
    if code is None:
        return [failed(name, f"timed out after {args.timeout:.0f} s")], note
    rows = None
    if out.exists():
        try:
            rows = json.loads(out.read_text())
        except ValueError as exc:
            return [failed(name, f"unreadable JSON ({exc})")], note
    problem = valid(rows) if rows is not None else "no rows written"
    if problem:
        tail = [line for line in log.read_text(errors="replace").splitlines() if line.strip()][-1:] or [""]
        return [failed(name, f"exit {code}, {problem}; last line: {tail[0][-160:]}")], note
    if code:
        note += f", exited {code} after writing its rows"
    return [dict(row, script=name) for row in rows], note


def cell(value, unit: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        value = f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}" if abs(value) < 1000 else f"{value:.0f}"
    return f"{value} {unit}".strip()


def markdown(rows: list[dict]) -> str:
    lines = ["| script | measure | value | reference | reference value | ratio | target | met |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        met = "FAILED" if row.get("failed") else "yes" if row["met"] else "**no**"
        ratio = f"{row['ratio']:.2f}x" if isinstance(row.get("ratio"), (int, float)) else "–"
        measure = str(row["measure"]).replace("|", "\\|")
        lines.append(f"| {row['script']} | {measure} | {cell(row['value'], row.get('unit') or '')} | {row.get('reference') or '–'} | "
                     f"{cell(row.get('reference_value'), row.get('unit') or '')} | {ratio} | {row.get('target') or '–'} | {met} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="pass --quick to each script whose --help lists it")
    parser.add_argument("--only", action="append", metavar="NAME", help=f"run only these scripts ({', '.join(SCRIPTS)}); repeat or comma-separate")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds before a script is stopped and reported failed (default 1800)")
    parser.add_argument("--logs", type=Path, help="folder for each script's output and JSON (default: a new temporary folder, kept)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter for the scripts (default: this one)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write every row (with its script) there as a JSON list")
    args = parser.parse_args()
    names = list(SCRIPTS)
    if args.only:
        wanted = [n.strip().removesuffix(".py") for item in args.only for n in item.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in SCRIPTS]
        if unknown:
            parser.error(f"unknown script(s) {unknown}; choose from {', '.join(SCRIPTS)}")
        names = [n for n in SCRIPTS if n in wanted]
    logs = args.logs or Path(tempfile.mkdtemp(prefix="bench-suite-"))
    logs.mkdir(parents=True, exist_ok=True)
    load_before, started, head = load(), time.perf_counter(), git_head()
    print(f"{os.cpu_count()} CPUs, load average {load_before} before; {platform.platform()}, Python {platform.python_version()}; "
          f"commit {head}; scripts: {', '.join(names)}{' (--quick)' if args.quick else ''}", flush=True)
    rows: list[dict] = []
    notes: dict[str, str] = {}
    for name in names:
        got, notes[name] = run_script(name, args, logs)
        rows.extend(got)
        print(f"  {name}: {notes[name]}, {sum(not r.get('failed') for r in got)} rows"
              + ("" if not got[0].get("failed") else f" -- {got[0]['measure']}"), flush=True)
    unmet = [r for r in rows if not r.get("failed") and not r["met"]]
    failures = [r for r in rows if r.get("failed")]
    print()
    moved = "" if git_head() == head else f" (HEAD moved to {git_head()} during the run)"
    print(f"Benchmarks of the performance issue, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {head}{moved}; "
          f"{os.cpu_count()} CPUs, load average {load_before} before, {load()} after ({(time.perf_counter() - started) / 60:.1f} min)"
          f"{'; --quick' if args.quick else ''}:")
    print()
    print(markdown(rows))
    print()
    print("Runs: " + "; ".join(f"{name} {note}" for name, note in notes.items()) + ".")
    print(f"{len(rows) - len(failures)} rows, {len(unmet)} target(s) unmet, {len(failures)} script(s) failed. Logs and JSON: {logs}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 1 if unmet or failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
