"""The CLI end to end: list, run --json, report, figures, exit codes, resume after SIGKILL."""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gentheory.verify import ResultStore, get_claim
from gentheory.verify.cli import main
from gentheory.verify.claims import claim_ids

CHEAP = ["grokking.slow_rate", "grokking.tail_amplitude"]


def run_cli(*args, cwd=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "gentheory", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def test_list_json_names_every_claim():
    out = run_cli("list", "--json")
    assert out.returncode == 0, out.stderr
    assert [c["id"] for c in json.loads(out.stdout)["claims"]] == claim_ids()


def test_run_json_reports_verdicts_and_exit_code(tmp_path):
    out = run_cli("run", *CHEAP, "--json", "--results", str(tmp_path), "--workers", "2")
    assert out.returncode == 0, out.stderr
    verdicts = json.loads(out.stdout)["verdicts"]
    assert {v["claim"] for v in verdicts} == set(CHEAP)
    for v in verdicts:
        assert {"claim", "status", "z_max", "z_star", "rival_rejected"} <= set(v)
        assert v["status"] == "PASS" and v["rival_rejected"] is True
    assert (tmp_path / "report.md").exists() and (tmp_path / "report.json").exists()
    rep = run_cli("report", "--results", str(tmp_path))
    assert rep.returncode == 0 and "grokking.slow_rate" in rep.stdout and "PASS" in rep.stdout
    # the HTML report of the same store: a page with both claims (no figure draws only these two claims)
    page_dir = tmp_path / "html"
    assert main(["report", "--results", str(tmp_path), "--html", str(page_dir)]) == 0
    page = (page_dir / "index.html").read_text(encoding="utf-8")
    assert all(f'<section id="{cid}">' in page for cid in CHEAP) and "<img" not in page
    (tmp_path / "a_file").write_text("")
    assert main(["report", "--results", str(tmp_path), "--html", str(tmp_path / "a_file")]) == 2


def test_deliberately_wrong_theory_makes_run_exit_nonzero(tmp_path, monkeypatch):
    claim = get_claim("grokking.slow_rate")
    right = type(claim).theory
    monkeypatch.setattr(type(claim), "theory", lambda self, p: right(self, p).__class__(
        right(self, p).value * 1.01, error_bound=right(self, p).error_bound))
    rc = main(["run", "grokking.slow_rate", "--results", str(tmp_path), "--executor", "serial", "--no-progress"])
    assert rc == 1
    assert ResultStore(tmp_path).load_verdict("grokking.slow_rate", "quick").status == "FAIL"


def test_version_prints_the_installed_version(capsys):
    import importlib.metadata as md

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"gentheory {md.version('gentheory')}"


def test_figures_list_names_every_figure(capsys):
    from gentheory.verify.figures import FIGURES

    assert main(["figures", "--list"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert names == sorted(FIGURES)


def test_every_option_has_help_text():
    from gentheory.verify.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {opt.option_strings or opt.dest}" for name, sub in commands.choices.items()
               for opt in sub._actions if not opt.help]
    assert not missing, missing


def test_a_run_outside_a_terminal_logs_one_line_per_finished_claim(tmp_path, capsys):
    """No terminal (logs, nohup, CI): no bar, one stderr line per claim as its last point finishes."""
    assert main(["run", "grokking.slow_rate", "grokking.double_root", "--executor", "serial",
                 "--results", str(tmp_path)]) == 0
    lines = capsys.readouterr().err.strip().splitlines()
    # one line per claim, in the order their last points finish (the run submits the dearest points first)
    assert sorted(line.split(": ")[1].split()[0] for line in lines) == ["grokking.double_root", "grokking.slow_rate"], lines
    assert "computed (14/14 points" in lines[-1], lines


def test_the_default_store_is_the_project_roots_from_any_folder(tmp_path, monkeypatch):
    """CLI and notebooks resolve one store: $GENTHEORY_RESULTS, else gentheory-results at the project root (found
    from any folder below it), else in the working folder."""
    from gentheory.verify import default_results_dir, project_root

    monkeypatch.delenv("GENTHEORY_RESULTS", raising=False)
    root = tmp_path / "checkout"
    (root / "notebooks" / "deep").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "gentheory"\n')
    (root / "notebooks" / "pyproject.toml").write_text('[project]\nname = "something-else"\n')
    monkeypatch.chdir(root / "notebooks" / "deep")
    assert project_root() == root.resolve()
    assert default_results_dir() == root.resolve() / "gentheory-results"
    monkeypatch.chdir(tmp_path)
    assert project_root() is None and default_results_dir() == tmp_path.resolve() / "gentheory-results"
    monkeypatch.setenv("GENTHEORY_RESULTS", str(tmp_path / "elsewhere"))
    assert default_results_dir() == tmp_path / "elsewhere"


def test_run_without_ids_is_a_usage_error():
    out = run_cli("run")
    assert out.returncode == 2 and "--all" in out.stderr


@pytest.mark.parametrize("argv, message", [
    (["calibrate", "grokking.slow_rate", "--seeds", "0"], "argument --seeds: 0 is outside [1, inf)"),
    (["calibrate", "grokking.slow_rate", "--seeds", "2", "--first-seed", "-1"], "argument --first-seed: -1 is outside [0, inf)"),
    (["run", "--all", "--workers", "0"], "argument --workers: 0 is outside [1, inf)"),
    (["run", "--all", "--alpha", "1.5"], "argument --alpha: 1.5 is outside (0, 1)"),
    (["run", "--all", "--seed", "x"], "argument --seed: 'x' is not an integer"),
    (["run", "--all", "--results", ""], "argument --results: '' is empty: name a directory"),
    (["figures", "--out", " "], "argument --out: ' ' is empty: name a directory"),
    (["run", "--all", "--executor", "dask", "--scheduler", "garbage:xx"], "argument --scheduler: 'garbage:xx' is not"),
    (["run", "--all", "--executor", "dask", "--scheduler", "file:///tmp/s"], "argument --scheduler: 'file:///tmp/s' is not"),
    (["run", "--all", "--executor", "dask", "--scheduler", "tcp://host"], "argument --scheduler: 'tcp://host' is not"),
    (["calibrate", "--all", "--seeds", "1", "--executor", "dask", "--scheduler", "tcp://h:70000"],
     "argument --scheduler: 'tcp://h:70000' is not"),
])
def test_bad_option_values_are_usage_errors_naming_option_value_and_range(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_scheduler_without_dask_executor_is_a_usage_error(capsys):
    assert main(["run", "grokking.slow_rate", "--scheduler", "tcp://h:8786"]) == 2
    assert "needs --executor dask" in capsys.readouterr().err


def test_unknown_figure_is_a_usage_error_listing_the_known_ones(tmp_path, capsys):
    assert main(["figures", "--only", "no_such_figure", "--results", str(tmp_path), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown figure 'no_such_figure'" in err and "strata_family" in err


def test_unknown_claim_is_a_usage_error_listing_the_registered_ones(capsys):
    assert main(["run", "grokking.no_such_claim"]) == 2
    err = capsys.readouterr().err
    assert "no claim or study 'grokking.no_such_claim'" in err and "grokking.slow_rate" in err


def test_figures_write_pdf_png_csv_json_from_stored_results(quick_results, tmp_path):
    """The CLI path for one figure with simulation and one theory-only figure; every figure is drawn and written
    (PDF and PNG) by the provenance test in tests/verify/test_figures.py, so it is not drawn a second time here."""
    from gentheory.verify.figures import FIGURES

    store, _ = quick_results
    names = ["double_descent_critical", "grokking_rate_hierarchy"]
    assert FIGURES[names[1]].theory_only and not FIGURES[names[0]].theory_only
    rc = main(["figures", "--results", str(store.root), "--out", str(tmp_path), "--style", "icml", "--only", *names])
    assert rc == 0
    assert sorted(p.stem for p in tmp_path.glob("*.pdf")) == sorted(names)
    for name in names:
        for ext in ("pdf", "png", "csv", "json"):
            f = tmp_path / f"{name}.{ext}"
            assert f.exists() and f.stat().st_size > 0, f
        prov = json.loads((tmp_path / f"{name}.json").read_text())
        assert prov["errorbars"] and prov["rendered_with"]["git"] is not None


@pytest.mark.parametrize("style", ["neurips", "icml", "iclr", "aistats", "jmlr", "tmlr"])
def test_every_venue_style_renders_without_latex(quick_results, tmp_path, style):
    """Some tueplots bundles hard-code TeX fonts; a fresh machine has no LaTeX, so every style must render."""
    store, _ = quick_results
    assert main(["figures", "--results", str(store.root), "--out", str(tmp_path), "--style", style,
                 "--only", "double_descent_critical"]) == 0
    assert (tmp_path / "double_descent_critical.pdf").stat().st_size > 0


def test_figures_without_results_say_what_to_run(tmp_path, capsys):
    assert main(["figures", "--results", str(tmp_path / "empty"), "--out", str(tmp_path)]) == 1
    assert "gentheory run" in capsys.readouterr().err


def test_killed_run_resumes_with_identical_results_and_nothing_lost(tmp_path):
    ids = ["grokking.slow_rate"]  # twelve independent points of about a second each
    fresh = tmp_path / "fresh"
    assert run_cli("run", *ids, "--results", str(fresh), "--executor", "serial").returncode == 0
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "gentheory", "run", *ids, "--results", str(killed),
                             "--executor", "serial", "--no-progress"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    pts = killed / ids[0] / "quick" / "points"
    deadline = time.time() + 300
    while time.time() < deadline and len(list(pts.glob("*.json"))) < 3:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    n_before = len(list(pts.glob("*.json")))
    total = len(get_claim(ids[0]).sweep("quick"))
    assert 0 < n_before < total, "the kill must land mid-sweep"
    assert run_cli("run", *ids, "--results", str(killed), "--executor", "serial").returncode == 0
    a = ResultStore(fresh).load_verdict(ids[0], "quick")
    b = ResultStore(killed).load_verdict(ids[0], "quick")
    assert [p.key for p in a.points] == [p.key for p in b.points]
    for pa, pb in zip(a.points, b.points):
        assert pa.measured == pb.measured and pa.theory == pb.theory and pa.seed_entropy == pb.seed_entropy
    # the rerun computed only what was missing: the first points keep their original timestamps
    assert len(list(pts.glob("*.json"))) == total


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc to find the worker processes")
def test_killing_a_process_pool_run_leaves_no_orphaned_workers(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "gentheory", "run", "grokking.k_grok_exact", "--results",
                             str(tmp_path), "--workers", "2", "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    workers = []
    while time.time() < deadline and len(workers) < 2:
        workers = [k for k in _children(proc.pid) if "spawn_main" in Path(f"/proc/{k}/cmdline").read_text(errors="ignore")]
        time.sleep(0.1)
    assert workers, "the pool never started"
    time.sleep(3)  # let the workers pick up tasks
    os.kill(proc.pid, signal.SIGKILL)  # the parent only, not its process group
    proc.wait()
    deadline = time.time() + 30
    while time.time() < deadline and any(Path(f"/proc/{w}").exists() for w in workers):
        time.sleep(0.2)
    alive = [w for w in workers if Path(f"/proc/{w}").exists()
             and Path(f"/proc/{w}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]
    assert not alive, f"workers {alive} outlived their killed parent"


def _group_gone(pgid: int, timeout: float) -> bool:
    """True once no process of the group ``pgid`` is left (within ``timeout`` seconds)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("executor, sig, target", [("process", "SIGINT", "group"), ("process", "SIGTERM", "parent"),
                                                   ("dask", "SIGINT", "group")])
def test_interrupt_stops_at_once_keeps_finished_points_and_resumes(tmp_path, executor, sig, target):
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) or SIGTERM to the parent: queued points are
    cancelled, running ones abandoned, finished ones kept; one line, exit 130, no process left; the same command
    then completes the run with the numbers of an uninterrupted one. The timeouts only catch a run that goes on
    computing its queue, they do not measure speed."""
    claim_id = "grokking.slow_rate"
    results = tmp_path / "interrupted"
    pts = results / claim_id / "quick" / "points"
    cmd = [sys.executable, "-m", "gentheory", "run", claim_id, "--results", str(results), "--executor", executor,
           "--workers", "2", "--no-progress"]
    # SIGINT back to its default in the child: a test run launched in the background (``pytest &`` in a script)
    # starts with SIGINT ignored, which the child would inherit, and Python then installs no Ctrl-C handler
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 300
    while time.time() < deadline and len(list(pts.glob("*.json"))) < 2:
        time.sleep(0.05)
    if target == "group":
        os.killpg(proc.pid, getattr(signal, sig))
    else:
        proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=15 if executor == "dask" else 10)
    stored = len(list(pts.glob("*.json")))
    total = len(get_claim(claim_id).sweep("quick"))
    assert proc.returncode == 130 and 2 <= stored < total, (proc.returncode, stored, err)
    assert "Traceback" not in err and err.strip().splitlines() == [
        f"gentheory: interrupted; {stored} points of the selected claims are stored in {results} (the points being "
        "computed were abandoned); the same command resumes from there"], err
    assert _group_gone(proc.pid, 10), "a worker outlived the interrupted run"
    if (executor, sig) != ("process", "SIGINT"):
        return
    assert run_cli("run", claim_id, "--results", str(results), "--workers", "2").returncode == 0
    assert run_cli("run", claim_id, "--results", str(tmp_path / "fresh"), "--workers", "2").returncode == 0
    a, b = (ResultStore(tmp_path / d).load_verdict(claim_id, "quick") for d in ("fresh", "interrupted"))
    assert [p.key for p in a.points] == [p.key for p in b.points]
    assert all(pa.measured == pb.measured and pa.theory == pb.theory for pa, pb in zip(a.points, b.points))


@pytest.mark.parametrize("argv, message", [
    (["run", "grokking.slow_rate", "--results", "{file}"], "gentheory run: --results '{file}' is not a directory"),
    (["run", "grokking.slow_rate", "--results", "/dev/null"], "gentheory run: --results '/dev/null' is not a directory"),
    (["calibrate", "grokking.slow_rate", "--seeds", "1", "--results", "{file}"],
     "gentheory calibrate: --results '{file}' is not a directory"),
    (["run", "grokking.slow_rate", "--results", "/proc/gentheory-none/r"],
     "gentheory run: --results '/proc/gentheory-none/r' is not a writable directory ("),
    (["figures", "--results", "{dir}", "--out", "{file}"], "gentheory figures: --out '{file}' is not a directory"),
])
def test_unusable_output_paths_are_refused_before_any_work(argv, message, tmp_path, capsys, monkeypatch):
    """A results or figures path that is a file, a device or not creatable (a read-only filesystem) ends in one
    line and exit 2 before anything is computed."""
    import gentheory.verify.cli as cli

    afile = tmp_path / "a-file"
    afile.write_text("")
    fill = {"{file}": str(afile), "{dir}": str(tmp_path)}
    argv = [fill.get(a, a) for a in argv]
    monkeypatch.setattr(cli, "run_claims", lambda *a, **k: pytest.fail("computed despite an unusable path"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message.replace("{file}", str(afile))) and len(err.strip().splitlines()) == 1, err


def test_a_scheduler_that_does_not_answer_fails_in_seconds_with_one_line(tmp_path, capsys):
    assert main(["run", "grokking.slow_rate", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1",
                 "--results", str(tmp_path), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "tcp://127.0.0.1:1" in err and len(err.strip().splitlines()) == 1, err


def test_a_write_failing_mid_run_stops_it_with_one_line_and_keeps_what_was_stored(tmp_path, capsys, monkeypatch):
    """Disk full after three points (an injected ENOSPC): the run stops at the failing write, names the file, keeps
    the three points, and the same command then completes the sweep."""
    import errno

    claim_id = "grokking.slow_rate"
    pts = tmp_path / claim_id / "quick" / "points"
    real = ResultStore.save_point

    def save_until_full(self, scale, point):
        if len(list(pts.glob("*.json"))) >= 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(pts / f"{point.key}.json"))
        real(self, scale, point)

    monkeypatch.setattr(ResultStore, "save_point", save_until_full)
    argv = ["run", claim_id, "--executor", "serial", "--results", str(tmp_path), "--no-progress"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"gentheory run: {pts}" in err and "No space left on device" in err and len(err.strip().splitlines()) == 1
    assert len(list(pts.glob("*.json"))) == 3 and not list(pts.glob("*.tmp*"))
    monkeypatch.setattr(ResultStore, "save_point", real)
    assert main(argv) == 0
    assert len(list(pts.glob("*.json"))) == len(get_claim(claim_id).sweep("quick"))


def test_a_reader_that_goes_away_is_not_a_traceback():
    """`gentheory list | head`: the pipe's reader is gone; exit 141 (128 + SIGPIPE) and nothing on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        out = subprocess.run([sys.executable, "-m", "gentheory", "list"], stdout=write_end, stderr=subprocess.PIPE,
                             text=True, timeout=120)
    finally:
        os.close(write_end)
    assert out.returncode == 141 and out.stderr == "", out.stderr


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc to find the worker processes")
def test_killing_the_run_while_its_workers_start_leaves_no_process(tmp_path):
    """SIGKILL to the parent the moment its first worker exists (before the worker's imports): the worker ends by
    the parent-death signal or, when the parent was gone before the signal was armed, by its own check."""
    proc = subprocess.Popen([sys.executable, "-m", "gentheory", "run", "grokking.k_grok_exact", "--results",
                             str(tmp_path), "--workers", "2", "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not _children(proc.pid):
        time.sleep(0.005)
    assert _children(proc.pid), "no worker started"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _group_gone(proc.pid, 30), "a worker or the resource tracker outlived the parent killed at start-up"
