"""Time from process start to the first painted window, peak and idle RSS: a bare PySide6 window vs Desktop Copilot,
with and without MCP servers configured, optionally against another checkout (--before)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from desktop_copilot.core.keys.known_keys import KNOWN_KEYS

ROOT = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).with_name("_startup_child.py")
DEMO_SERVER = Path("tests/support/mcp_servers/demo_server.py")


@dataclass(frozen=True)
class Mode:
    label: str
    kind: str
    """bare: a QMainWindow alone; copilot: the app's real entry point."""
    root: Path
    """The checkout whose desktop_copilot package runs (PYTHONPATH and cwd)."""
    configured: int = 0
    """How many stdio MCP servers mcp.json lists."""
    expect_ready: int = 0
    """How many of them must reach READY before the idle measurement (0: this checkout has no MCP support)."""


def write_mcp_json(home: Path, count: int, python: str, demo_server: Path) -> None:
    servers = {f"notes{i}": {"command": python, "args": [str(demo_server), "--transport", "stdio"]} for i in range(1, count + 1)}
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))


def alive(pid: int, cmd: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as raw:
            return raw.read().replace(b"\0", b" ").decode(errors="replace").strip().endswith(cmd)
    except OSError:
        return False


def indexed_source(files: int) -> Path:
    """A knowledge database holding one source of `files` files, indexed (cached in the temp folder beside the corpus)."""
    sys.path.insert(0, str(ROOT))
    from bench.knowledge_index import ensure_corpus
    from desktop_copilot.core.knowledge.indexer import index_source
    from desktop_copilot.core.knowledge.library import FILE_NAME, KnowledgeLibrary

    corpus, _manifest, _made = ensure_corpus(files, files * 0.02, 7)
    folder = Path(tempfile.gettempdir()) / f"dc-startup-knowledge-{files}"
    if not (folder / FILE_NAME).exists():
        print(f"indexing {files:,} files into {folder} (cached for later runs) ...", flush=True)
        library = KnowledgeLibrary.in_folder(folder)
        index_source(library, library.add_source(corpus, "large"))
        library.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        library.close()
    return folder / FILE_NAME


def launch(mode: Mode, python: str, env: dict[str, str], idle_s: float) -> dict:
    started = time.time()
    done = subprocess.run(
        [python, str(CHILD), mode.kind, repr(started), repr(idle_s), str(mode.expect_ready)],
        env=env, cwd=mode.root, capture_output=True, text=True, timeout=180, check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{mode.label} child failed ({done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
    result = json.loads(lines[-1])
    result["exit_s"] = time.time() - started
    if mode.kind == "copilot" and not Path(result["package"]).resolve().is_relative_to(mode.root.resolve()):
        raise SystemExit(f"{mode.label}: desktop_copilot was imported from {result['package']}, not from {mode.root}")
    result["left_running"] = [c["pid"] for c in result.get("children", ()) if alive(c["pid"], c["cmd"])]
    return result


def median(runs: list[dict], key: str) -> float:
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="timed launches of each kind, interleaved (default 5)")
    parser.add_argument("--idle", type=float, default=5.0,
                        help="seconds to sit idle after the first frame (and after the MCP servers are ready) before reading RSS; 0: exit at the first frame")
    parser.add_argument("--mcp-servers", type=int, default=3, help="stdio MCP servers (the tests' demo server) in the MCP mode's mcp.json; 0: no MCP mode")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--before", type=Path, help="another checkout (e.g. an export of an older commit) to run side by side")
    parser.add_argument("--python", default=sys.executable, help="the interpreter for every child (default: this one)")
    parser.add_argument("--json", type=Path, help="also write the suite's rows (figures, references, ratios, targets) here")
    parser.add_argument("--quick", action="store_true", help="3 launches of each kind, 4 s idle")
    parser.add_argument("--knowledge-files", type=int, default=0, metavar="N",
                        help="every home holds a knowledge source of N files (bench/knowledge_index.py's corpus, ~20 KB "
                             "each), indexed beforehand: the window starts with a large source configured (0: none)")
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.idle = min(args.repeat, 3), min(args.idle, 4.0)
    root = args.root.resolve()
    demo_server = root / DEMO_SERVER
    if args.mcp_servers and (not demo_server.exists() or args.idle <= 0):
        raise SystemExit(f"the MCP mode needs {demo_server} and --idle > 0")
    now, mcp = ("after", f"after+{args.mcp_servers}mcp") if args.before else ("copilot", f"copilot+{args.mcp_servers}mcp")
    modes = [Mode("bare", "bare", root)]
    if args.before:
        modes.append(Mode("before", "copilot", args.before.resolve()))
    modes.append(Mode(now, "copilot", root))
    if args.mcp_servers:
        modes.append(Mode(mcp, "copilot", root, args.mcp_servers, args.mcp_servers))
        if args.before:  # the older checkout ignores mcp.json: the honest baseline for "configured"
            modes.append(Mode("before+mcp.json", "copilot", args.before.resolve(), args.mcp_servers, 0))
    knowledge = indexed_source(args.knowledge_files) if args.knowledge_files else None
    with tempfile.TemporaryDirectory(prefix="bench-home-") as tmp:
        base_env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "TAVILY_", "DESKTOP_COPILOT_", "PYTHON"))}
        base_env.update(QT_QPA_PLATFORM="offscreen", ANTHROPIC_BASE_URL="http://127.0.0.1:9")
        base_env.update({spec.env_var: f"bench-fake-{spec.name}" for spec in KNOWN_KEYS.values()})  # every provider configured
        envs = {}
        for mode in modes:  # a home per mode: checkouts may keep different database schemas
            home = Path(tmp) / mode.label
            home.mkdir()
            if mode.configured:
                write_mcp_json(home, mode.configured, args.python, demo_server)
            if knowledge is not None:
                (home / "data").mkdir(parents=True, exist_ok=True)
                shutil.copy(knowledge, home / "data" / knowledge.name)
            envs[mode.label] = dict(base_env, DESKTOP_COPILOT_HOME=str(home), PYTHONPATH=str(mode.root))
        for mode in modes:  # warm-up: .pyc files, the OS file cache, the app's data directory
            launch(mode, args.python, envs[mode.label], args.idle)
        results: dict[str, list[dict]] = {mode.label: [] for mode in modes}
        for _ in range(args.repeat):
            for mode in modes:
                results[mode.label].append(launch(mode, args.python, envs[mode.label], args.idle))
    report(args, modes, results)


def report(args: argparse.Namespace, modes: list[Mode], results: dict[str, list[dict]]) -> None:
    print(f"{args.repeat} launches each, interleaved, after one warm-up each; Qt platform offscreen, {os.cpu_count()} CPUs, "
          f"load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())}; idle {args.idle:g} s; python {args.python}")
    for mode in modes:
        print(f"  {mode.label:<16} {mode.kind:<8} {mode.root}" + (f"  mcp.json: {mode.configured} servers, {mode.expect_ready} must be ready" if mode.configured else ""))
    keys = ("shown_s", "cpu_s", "peak_rss_mb", "complete_s", "cpu_complete_s", "ready_s", "idle_rss_mb", "idle_pss_mb", "idle_cpu_ms", "tail_cpu_pct", "peak_rss_end_mb",
            "idle_children_rss_mb", "threads", "use_rss_mb", "use_pss_mb", "children_rss_mb", "children_pss_mb", "use_threads")
    medians = {label: {key: median(runs, key) for key in keys} for label, runs in results.items()}
    bare = medians["bare"]
    print()
    print("| mode | first frame, median (min–max) | / bare | CPU to frame | peak RSS at frame | window complete (/ bare) | "
          "idle RSS (app) | idle PSS (app) | app CPU in the idle window (last 2 s) | child processes at idle | "
          "after one keystroke: SDK + servers ready in | RSS (PSS) of the app | MCP child processes: count, RSS sum (PSS sum) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mode in modes:
        runs, m = results[mode.label], medians[mode.label]
        shown = [r["shown_s"] * 1e3 for r in runs]
        children = statistics.median(len(r.get("children", ())) for r in runs)
        ready = f"{m['ready_s'] * 1e3:.0f} ms" if m["ready_s"] == m["ready_s"] else "–"
        complete = f"{m['complete_s'] * 1e3:.0f} ms ({m['complete_s'] / bare['shown_s']:.2f}x)" if m["complete_s"] == m["complete_s"] else "–"
        idle_children = statistics.median(len(r.get("idle_children", ())) for r in runs)
        use = (f"{m['use_rss_mb']:.1f} MB ({m['use_pss_mb']:.1f} MB)" if m["use_rss_mb"] == m["use_rss_mb"] else "–")
        print(f"| {mode.label} | {m['shown_s'] * 1e3:.0f} ms ({min(shown):.0f}–{max(shown):.0f}) | {m['shown_s'] / bare['shown_s']:.2f}x | "
              f"{m['cpu_s'] * 1e3:.0f} ms | {m['peak_rss_mb']:.1f} MB | {complete} | {m['idle_rss_mb']:.1f} MB | {m['idle_pss_mb']:.1f} MB | "
              f"{m['idle_cpu_ms']:.0f} ms / {args.idle:g} s ({m['tail_cpu_pct']:.1f} %) | {idle_children:.0f} | {ready} | {use} | "
              f"{children:.0f}, {m['children_rss_mb']:.1f} MB ({m['children_pss_mb']:.1f} MB) |")
    print()
    n = args.mcp_servers
    pairs = [("after", "before"), (f"after+{n}mcp", "before+mcp.json"), (f"after+{n}mcp", "after"), (f"copilot+{n}mcp", "copilot"),
             ("copilot", "bare"), ("after", "bare")]
    for a, b in pairs:
        if a in medians and b in medians:
            x, y = medians[a], medians[b]
            print(f"  {a} / {b}: first frame {x['shown_s'] / y['shown_s']:.2f}x ({(x['shown_s'] - y['shown_s']) * 1e3:+.0f} ms), "
                  f"peak RSS at frame {x['peak_rss_mb'] / y['peak_rss_mb']:.2f}x ({x['peak_rss_mb'] - y['peak_rss_mb']:+.1f} MB), "
                  f"idle RSS of the app {x['idle_rss_mb'] / y['idle_rss_mb']:.2f}x ({x['idle_rss_mb'] - y['idle_rss_mb']:+.1f} MB), "
                  f"idle PSS {x['idle_pss_mb'] - y['idle_pss_mb']:+.1f} MB")
    for mode in modes:
        runs = results[mode.label]
        if mode.expect_ready:
            last = runs[-1]["mcp"]
            print(f"  {mode.label}: servers in the last run: " + ", ".join(f"{s['name']} {s['state']} ({s['tools']} tools)" for s in last)
                  + f"; ready in {sum(1 for r in runs if r.get('ready_s'))}/{len(runs)} runs")
            print("    child processes (last run): " + "; ".join(f"{c['cmd'][-60:]} {c['rss_mb']:.1f} MB" for c in runs[-1]["children"]))
        left = [pid for r in runs for pid in r["left_running"]]
        if left:
            print(f"  {mode.label}: child processes still running after the app exited: {left}")
        imported = sum(r["anthropic_imported"] for r in runs)
        if mode.kind == "copilot":
            at_idle = {name: sum(name in r.get("imported_at_idle", ()) for r in runs) for name in ("anthropic", "mcp")}
            print(f"  {mode.label}: anthropic imported before the first frame in {imported}/{len(runs)} runs, when idle RSS was read in "
                  f"{at_idle['anthropic']}/{len(runs)} (mcp in {at_idle['mcp']}/{len(runs)}); peak RSS by the end "
                  f"{medians[mode.label]['peak_rss_end_mb']:.1f} MB; {medians[mode.label]['threads']:.0f} threads")
    print(json.dumps({"medians": medians, "runs": results}))
    if args.json:
        args.json.write_text(json.dumps(suite_rows(args, medians), indent=2))


def suite_rows(args: argparse.Namespace, medians: dict[str, dict]) -> list[dict]:
    """The suite's rows (bench/suite.py): first frame against the bare window, idle RSS with every provider and the
    MCP servers configured."""
    bare, app = medians["bare"], medians.get("after") or medians["copilot"]
    rows = [
        row("process start -> first painted window", app["shown_s"] * 1e3, "ms", "bare PySide6 window", bare["shown_s"] * 1e3, "<= 1.5x"),
        row("process start -> window complete (composer painted)", app["complete_s"] * 1e3, "ms", "bare PySide6 window",
            bare["shown_s"] * 1e3, "(no target)"),
        row("idle RSS after start, every provider configured, no MCP server", app["idle_rss_mb"], "MB", "bare PySide6 window",
            bare["idle_rss_mb"], "(no target)"),
    ]
    with_mcp = medians.get(f"after+{args.mcp_servers}mcp") or medians.get(f"copilot+{args.mcp_servers}mcp")
    if with_mcp:
        rows.append(row(f"idle RSS after start, every provider and {args.mcp_servers} MCP servers configured",
                        with_mcp["idle_rss_mb"], "MB", "bare PySide6 window", bare["idle_rss_mb"], "<= 100 MB"))
        rows.append(row(f"RSS after the first keystroke: the provider SDK loaded, {args.mcp_servers} MCP servers ready (their own "
                        "processes not counted)", with_mcp["use_rss_mb"], "MB", "bare PySide6 window", bare["idle_rss_mb"], "(no target)"))
    return rows


def row(measure: str, value: float, unit: str, reference: str, reference_value: float, target: str) -> dict:
    ratio = value / reference_value if reference_value else None
    if target.endswith("x"):
        met = ratio is not None and ratio <= float(target.split()[-1][:-1])
    elif target.startswith("<="):
        met = value <= float(target.split()[1])
    else:
        met = True
    return {"measure": measure, "value": round(value, 1), "unit": unit, "reference": reference,
            "reference_value": round(reference_value, 1), "ratio": round(ratio, 2) if ratio else None, "target": target, "met": met}


if __name__ == "__main__":
    main()
