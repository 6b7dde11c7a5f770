"""The shipped paper-scale store: shipping, its manifest, staleness, reuse — and the store this checkout ships."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from gentheory.verify import ResultStore, get_claim, run_claims
from gentheory.verify.claims import claim_ids
from gentheory.verify.core import SUCCESS
from gentheory.verify.shipped import (MANIFEST_NAME, MAX_SHIPPED_BYTES, ShippedFallbackStore, current_keys,
                                      manifest_problems, refresh_command, ship, shipped_results_dir, stale_claims)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cheap_paper(monkeypatch):
    """``grokking.tail_amplitude`` with its quick design declared as its paper design: a paper-scale run in a second."""
    claim = get_claim("grokking.tail_amplitude")
    cls = type(claim)
    quick_sweep = cls.sweep
    monkeypatch.setattr(cls, "scales", {**cls.scales, "paper": cls.scales["quick"]})
    monkeypatch.setattr(cls, "sweep", lambda self, scale: quick_sweep(self, "quick"))
    return claim


@pytest.fixture
def shipped_store(tmp_path, cheap_paper):
    """A paper-scale run of the cheap claim in ``src`` and its shipped store in ``dest``."""
    src = ResultStore(tmp_path / "src")
    (verdict,) = run_claims([cheap_paper], scale="paper", store=src, executor="serial", progress=False)
    result = ship(src.root, tmp_path / "dest", [cheap_paper])
    return cheap_paper, verdict, src, tmp_path / "dest", result


def test_ship_copies_exactly_the_verdict_and_its_points_with_a_manifest(shipped_store):
    claim, verdict, src, dest, result = shipped_store
    assert verdict.status in SUCCESS
    assert result.shipped == [claim.id] and result.not_shipped == {}
    manifest = json.loads((dest / MANIFEST_NAME).read_text())
    assert manifest["claims"][claim.id]["points"] == [p.key for p in verdict.points] == current_keys(claim)
    files = {str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file()}
    points = {f"{claim.id}/paper/points/{p.key}.json" for p in verdict.points}
    assert points <= files and f"{claim.id}/paper/verdict.json" in files
    assert files - points - {f"{claim.id}/paper/verdict.json"} <= {"report.md", "report.json", MANIFEST_NAME} | {
        f[:-4] + "npz" for f in points}
    assert manifest_problems(dest) == []
    assert stale_claims(dest, [claim]) == {}
    assert result.total_bytes == sum(f["bytes"] for f in manifest["files"].values())


def test_manifest_problems_name_an_edited_a_missing_and_an_unlisted_file(shipped_store):
    claim, verdict, _, dest, _ = shipped_store
    point = dest / claim.id / "paper" / "points" / f"{verdict.points[0].key}.json"
    point.write_text(point.read_text().replace('"', "'", 1))
    (dest / "stray.txt").write_text("x")
    (dest / "report.md").unlink()
    problems = manifest_problems(dest)
    assert any(point.name in p and "SHA-256" in p for p in problems)
    assert any(p.startswith("stray.txt: not listed") for p in problems)
    assert any(p.startswith("report.md: listed") for p in problems)
    assert len(problems) == 3


def test_a_code_or_design_change_makes_the_shipped_claim_stale(shipped_store, monkeypatch, tmp_path):
    claim, verdict, _, dest, _ = shipped_store
    cls = type(claim)
    sweep = cls.sweep
    monkeypatch.setattr(cls, "sweep", lambda self, scale: sweep(self, scale)[:-1])
    stale = stale_claims(dest, [claim])
    assert list(stale) == [claim.id] and f"1 of {len(verdict.points) - 1}" in stale[claim.id]
    assert claim.id in refresh_command(list(stale)) and "--scale paper" in refresh_command(list(stale))
    reader = ShippedFallbackStore(tmp_path / "user", dest)
    assert reader.load_verdict(claim.id, "paper") is None and reader.stale == [claim.id]
    # a claim that is no longer registered is stale too
    assert stale_claims(dest, []) == {claim.id: "shipped but no longer registered"}


def test_the_fallback_reads_a_current_shipped_verdict_only_at_paper_scale(shipped_store, tmp_path):
    claim, verdict, _, dest, _ = shipped_store
    reader = ShippedFallbackStore(tmp_path / "user", dest)
    got = reader.load_verdict(claim.id, "paper")
    assert got is not None and [p.key for p in got.points] == [p.key for p in verdict.points]
    assert reader.used == [claim.id]
    assert reader.load_verdict(claim.id, "quick") is None
    assert ShippedFallbackStore(tmp_path / "user", None).load_verdict(claim.id, "paper") is None


def test_a_paper_run_reuses_the_current_shipped_points_and_fresh_recomputes(shipped_store, monkeypatch, tmp_path):
    claim, verdict, _, dest, _ = shipped_store

    def no_simulation(*args, **kwargs):
        raise AssertionError("a shipped point was recomputed")

    monkeypatch.setattr(type(claim), "simulate", no_simulation)
    user = ResultStore(tmp_path / "user")
    (again,) = run_claims([claim], scale="paper", store=user, executor="serial", progress=False, reuse=[dest])
    assert again.status == verdict.status
    for a, b in zip(verdict.points, again.points):
        assert a.key == b.key and np.array_equal(a.measured.value, b.measured.value)
    (fresh,) = run_claims([claim], scale="paper", store=ResultStore(tmp_path / "f"), executor="serial",
                          progress=False, reuse=[dest], fresh=True)
    assert fresh.status == "ERROR" and "a shipped point was recomputed" in fresh.message


def test_ship_keeps_what_is_current_and_refuses_what_is_not(shipped_store, tmp_path, monkeypatch):
    claim, _, src, dest, _ = shipped_store
    empty = tmp_path / "empty"
    empty.mkdir()
    again = ship(empty, dest, [claim])  # the source has nothing: the current shipped verdict stays
    assert again.kept == [claim.id] and again.shipped == [] and manifest_problems(dest) == []
    (dest / claim.id / "paper" / "points" / ("f" * 32 + ".json")).write_text("{}")  # an unreferenced file
    assert ship(empty, dest, [claim]).removed_files == 1 and manifest_problems(dest) == []
    monkeypatch.setattr(type(claim), "sweep", lambda self, scale: [])
    gone = ship(src.root, dest, [claim])  # stale in the source and in the shipped store: nothing ships
    assert gone.shipped == [] and "stale" in gone.not_shipped[claim.id]
    assert not (dest / claim.id).exists() and manifest_problems(dest) == []
    assert json.loads((dest / MANIFEST_NAME).read_text())["not_shipped"] == gone.not_shipped


def test_ship_refuses_a_store_over_the_size_limit(shipped_store, monkeypatch, tmp_path):
    claim, _, src, _, _ = shipped_store
    monkeypatch.setattr("gentheory.verify.shipped.MAX_SHIPPED_BYTES", 100)
    with pytest.raises(ValueError, match="over the 0 MB limit"):
        ship(src.root, tmp_path / "small", [claim])


def test_the_cli_ship_command_checks_its_source(tmp_path, capsys):
    from gentheory.verify.cli import main

    assert main(["ship", str(tmp_path / "absent"), "--to", str(tmp_path / "x")]) == 2
    assert "does not exist" in capsys.readouterr().err


# ---------------------------------------------------------------- the store this checkout ships

SHIPPED = shipped_results_dir(ROOT)


def test_the_checkout_ships_a_paper_scale_store():
    assert SHIPPED is not None, f"{ROOT / 'paper-results'} is missing"


@pytest.mark.skipif(SHIPPED is None, reason="no shipped store (the test above fails)")
def test_the_shipped_store_is_intact_current_and_small():
    """Every shipped file matches its manifest; every shipped point is stored under the key the current code gives
    it (else the test names the stale claims and the command that ships them again); all succeeded."""
    assert manifest_problems(SHIPPED) == []
    stale = stale_claims(SHIPPED)
    assert not stale, ("shipped paper-scale points are stale: " + "; ".join(f"{c}: {why}" for c, why in stale.items())
                       + f". Recompute and ship them again: {refresh_command(list(stale))}")
    manifest = json.loads((SHIPPED / MANIFEST_NAME).read_text())
    assert all(entry["status"] in SUCCESS for entry in manifest["claims"].values())
    assert sum(f["bytes"] for f in manifest["files"].values()) <= MAX_SHIPPED_BYTES
    # every registered claim is shipped, so every paper figure and the whole report come from it
    assert manifest["not_shipped"] == {}
    missing = set(claim_ids()) - set(manifest["claims"])
    assert not missing, (f"registered claims not shipped at paper scale: {sorted(missing)}; compute and ship them: "
                         f"{refresh_command(sorted(missing))}")


@pytest.mark.skipif(SHIPPED is None, reason="no shipped store (the test above fails)")
def test_paper_figures_render_from_the_shipped_store_alone(tmp_path):
    """`gentheory figures --scale paper` on a fresh clone: no results directory, nothing computed."""
    from gentheory.verify.cli import main
    from gentheory.verify.figures import FIGURES, load_figures

    load_figures()
    shipped = set(json.loads((SHIPPED / MANIFEST_NAME).read_text())["claims"])
    drawable = sorted(n for n, s in FIGURES.items() if s.claims and set(s.claims) <= shipped)
    assert drawable == sorted(n for n, s in FIGURES.items() if s.claims), "a figure's claims are not all shipped"
    name = drawable[0]  # one figure here; all of them in the recorded fresh-clone measurement (docs/paper_scale.md)
    out = tmp_path / "figs"
    assert main(["figures", "--scale", "paper", "--results", str(tmp_path / "none"), "--out", str(out),
                 "--only", name, "--format", "png"]) == 0
    meta = json.loads((out / f"{name}.json").read_text())
    assert meta["scale"] == "paper" and set(meta["claims"]) == set(FIGURES[name].claims)
    shutil.rmtree(out)


def test_cost_hints_order_the_run_dearest_first(monkeypatch):
    """Every claim in the shipped store gets its mean paper-scale CPU seconds per point (its verdict's elapsed over its
    point count), a claim it lacks none; run_claims hands the executor its points in decreasing hint, unknown first."""
    from gentheory.verify import runner
    from gentheory.verify.claims import all_claims

    claims = all_claims()
    hints = runner.cost_hints(claims)
    root = shipped_results_dir()
    for claim in claims:
        verdict = root / claim.id / "paper" / "verdict.json"
        if not verdict.is_file():
            assert claim.id not in hints
            continue
        payload = json.loads(verdict.read_text())["payload"]
        assert hints[claim.id] == pytest.approx(payload["elapsed"] / len(payload["point_keys"]), rel=1e-12)
    chosen = [get_claim(c) for c in ("double_descent.smallest_eigenvalue", "double_descent.response_collapse",
                                     "double_descent.critical_growth")]
    monkeypatch.setattr(runner, "cost_hints", lambda cs, scale: {"double_descent.response_collapse": 5.0,
                                                          "double_descent.critical_growth": 1.0})
    seen = []
    monkeypatch.setattr(runner, "execute_points", lambda tasks, **kw: seen.extend(cid for cid, _, _ in tasks))
    with pytest.raises(RuntimeError, match="changed while this run"):  # nothing was computed: every point missing
        runner.run_claims(chosen, scale="quick", executor="serial")
    assert seen == ["double_descent.smallest_eigenvalue", "double_descent.response_collapse",
                    "double_descent.critical_growth"]


def test_quick_scale_hints_come_from_the_recorded_quick_run():
    """At the quick scale the recorded quick costs replace the paper-scale hints of the claims they cover; every
    recorded claim is registered and costs a positive time."""
    from gentheory.verify import runner
    from gentheory.verify.claims import all_claims

    recorded = json.loads(runner.QUICK_COSTS.read_text())["seconds_per_point"]
    ids = {c.id for c in all_claims()}
    assert set(recorded) <= ids and all(v > 0 for v in recorded.values())
    quick, paper = runner.cost_hints(all_claims(), "quick"), runner.cost_hints(all_claims())
    for cid in ids:
        assert quick.get(cid) == (recorded[cid] if cid in recorded else paper.get(cid))
