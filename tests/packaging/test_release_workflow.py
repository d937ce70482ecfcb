"""The release workflow and the Inno Setup script cannot run here: check what can be checked locally.

The YAML parses, it has a job on each kind of runner that uploads its artifacts, and every local path
it (and packaging/installer.iss) names exists in the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML is needed to parse the release workflow")

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
INSTALLER = ROOT / "packaging" / "installer.iss"

# Folders whose files exist in the checkout; dist/ and build/ are what the workflow produces.
LOCAL_PATH = re.compile(r"(?<![\w./-])((?:packaging|resources|desktop_copilot|tests|docs|\.github)[/\\][\w.\\/-]*[\w])")
BUILD_OUTPUTS = ("dist/", "dist\\", "build/", "build\\")


def load_workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def strings(node) -> list[str]:
    """Every string anywhere in the parsed YAML."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in strings(key) + strings(value)]
    if isinstance(node, list):
        return [s for item in node for s in strings(item)]
    return []


def test_workflow_parses_and_builds_on_every_os():
    workflow = load_workflow()
    triggers = workflow.get("on", workflow.get(True))  # PyYAML reads a bare `on:` key as True
    assert "workflow_dispatch" in triggers and "push" in triggers
    runners = {name: job["runs-on"] for name, job in workflow["jobs"].items()}
    assert any(r.startswith("ubuntu") for r in runners.values())
    assert any(r.startswith("windows") for r in runners.values())
    assert any(r.startswith("macos") for r in runners.values())
    for name, job in workflow["jobs"].items():
        steps = job["steps"]
        assert all("uses" in step or "run" in step for step in steps), name
        uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
        assert uploads, f"job {name} uploads no artifact"
        assert all(s["with"].get("if-no-files-found") == "error" for s in uploads), name


def test_workflow_builds_each_download():
    text = "\n".join(strings(load_workflow()))
    for needle in ("python -m build", "packaging/build_bundle.sh", "packaging/build_deb.sh", "packaging/smoke_test.sh",
                   "packaging\\installer.iss", "packaging/desktop-copilot.spec", "hdiutil create", "*.dmg", "*.deb"):
        assert needle in text, needle


def test_every_local_path_the_workflow_names_exists():
    named = {m.group(1).replace("\\", "/") for s in strings(load_workflow()) for m in LOCAL_PATH.finditer(s)}
    named = {p for p in named if not p.startswith(BUILD_OUTPUTS)}
    assert named, "the workflow names no local path: the regex is broken"
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"release.yml names paths that do not exist: {missing}"


def test_scripts_the_workflow_runs_are_there_and_executable_in_bash():
    for script in ("build_bundle.sh", "build_deb.sh", "smoke_test.sh"):
        text = (ROOT / "packaging" / script).read_text()
        assert text.startswith("#!/usr/bin/env bash"), script
        assert "set -" in text, script


def test_installer_names_existing_files():
    text = INSTALLER.read_text()
    assert re.search(r"^PrivilegesRequired=lowest$", text, re.M), "the installer must be per-user"
    assert "{autoprograms}" in text, "no Start menu shortcut"
    named = re.findall(r'(?:Source:\s*"|SetupIconFile=|LicenseFile=)([^"\r\n]+)', text)
    assert named
    for path in named:
        relative = path.replace("\\", "/")
        if relative.startswith("../dist/"):
            continue  # the PyInstaller bundle, built before iscc runs
        assert (INSTALLER.parent / relative).resolve().exists(), path
