"""Claims from outside the repository: the README's example, installed as a distribution with an entry point (a
``.dist-info`` folder with ``entry_points.txt`` on ``PYTHONPATH`` is what ``pip install`` leaves), run through the CLI
on the process pool; edits to the plugin's executed code re-key its points, docstring edits do not."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLAIM = "mine.folded_normal_mean"


def _readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- plugin-example -->\n```python\n(.*?)```", text, re.S)
    assert match, "README.md lost its plugin example"
    return match.group(1)


def _install(site: Path, entry_points: str) -> Path:
    """The plugin package ``my_claims`` under ``site``, with distribution metadata declaring ``entry_points``."""
    package = site / "my_claims"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""A gentheory plugin."""\n')
    (package / "study.py").write_text('"""Claims of my own."""\n' + _readme_example())
    (package / "figures.py").write_text(
        '"""Figures of my own."""\nfrom gentheory.verify.figures import figure\n\n\n'
        '@figure("mine_folded", claims=["mine.folded_normal_mean"], caption="E|X| against σ.")\n'
        'def folded(verdicts):\n    raise NotImplementedError\n')
    info = site / "my_claims-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-claims\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    return package


def _gentheory(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    env.pop("GENTHEORY_PLUGINS", None)
    return subprocess.run([sys.executable, "-m", "gentheory", *args], capture_output=True, text=True, env=env,
                          cwd=site, timeout=600)


def _stored_keys(results: Path) -> set[str]:
    return {p.stem for p in (results / CLAIM / "quick" / "points").glob("*.json")}


def test_an_installed_plugin_runs_through_the_cli_and_re_keys_on_edits(tmp_path: Path) -> None:
    site, results = tmp_path / "site", tmp_path / "results"
    package = _install(site, "[gentheory.studies]\nmine = my_claims.study\n\n"
                             "[gentheory.figures]\nmine = my_claims.figures\n")
    listed = _gentheory(site, "list")
    assert listed.returncode == 0 and CLAIM in listed.stdout, listed.stderr
    figures = _gentheory(site, "figures", "--list")
    assert "mine_folded" in figures.stdout, figures.stderr

    run = ["run", "mine", "--results", str(results), "--executor", "process", "--workers", "2", "--no-progress"]
    first = _gentheory(site, *run)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "PASS" in (results / "report.md").read_text()
    keys = _stored_keys(results)
    assert len(keys) == 3

    # the same code again: every point reused
    assert _gentheory(site, *run).returncode == 0 and _stored_keys(results) == keys

    # a docstring and a comment: nothing recomputes
    study = package / "study.py"
    study.write_text(study.read_text().replace('"""Claims of my own."""', '"""Claims of mine."""') + "# a note\n")
    assert _gentheory(site, *run).returncode == 0 and _stored_keys(results) == keys

    # a module of the plugin's package that the study imports, then an edit inside it: each re-keys every point
    (package / "_constants.py").write_text("SHIFT = 0.0\n")
    study.write_text(study.read_text() + "from my_claims._constants import SHIFT  # noqa: E402,F401\n")
    assert _gentheory(site, *run).returncode == 0
    imported = _stored_keys(results) - keys
    assert len(imported) == 3
    (package / "_constants.py").write_text("SHIFT = 1.0\n")
    assert _gentheory(site, *run).returncode == 0
    assert len(_stored_keys(results) - keys - imported) == 3


def test_plugin_option_and_bad_plugins(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _install(site, "")
    assert CLAIM not in _gentheory(site, "list").stdout  # not installed as an entry point: not loaded
    assert CLAIM in _gentheory(site, "--plugin", "my_claims.study", "list").stdout
    assert CLAIM in _gentheory(site, "list", "--plugin", "my_claims.study").stdout
    missing = _gentheory(site, "--plugin", "no_such_plugin", "list")
    assert missing.returncode == 2 and "plugin 'no_such_plugin'" in missing.stderr and "Traceback" not in missing.stderr
    evil = _gentheory(site, "--plugin", "os;import shutil", "list")
    assert evil.returncode == 2 and "not a module name" in evil.stderr


def test_an_entry_point_must_name_a_module(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _install(site, "[gentheory.studies]\nmine = my_claims.study:FoldedNormalMean\n")
    out = _gentheory(site, "list")
    assert out.returncode == 2 and "must name a module" in out.stderr


@pytest.mark.parametrize("value", ["a b", "1module", "os.system('x')"])
def test_the_environment_variable_is_checked(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from gentheory.verify.claims import PLUGINS_ENV, PluginError, plugin_modules

    monkeypatch.setenv(PLUGINS_ENV, f"json,{value}")
    with pytest.raises(PluginError, match="not a module name"):
        plugin_modules()
