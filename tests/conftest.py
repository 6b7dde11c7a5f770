"""Shared fixtures: the slow marker switch, a derandomized hypothesis profile, and one quick-scale
run of the whole registry per test session (reused by the claim, CLI, figure and notebook tests)."""
from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60)
# HYPOTHESIS_PROFILE=thorough: random (not derandomized) and 50x the examples, to hunt for what 60 fixed
# examples miss (the ci profile missed a rounding case for the leaky-ReLU slope that a CI run then hit).
settings.register_profile("thorough", deadline=None, max_examples=3000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", default=False, help="also run paper-scale (slow) tests")


def _skip_slow(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow") or os.environ.get("GENTHEORY_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="paper scale: run with --run-slow or GENTHEORY_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _skip_slow(config, items)
    # The tests that read the session's quick run go last (a stable sort keeps the rest in file order), so under
    # pytest-xdist the other worker runs the unit tests while the first one to need the quick run computes it.
    items.sort(key=lambda item: "quick_results" in getattr(item, "fixturenames", ()))


@contextlib.contextmanager
def _exclusive(lock_path: Path):
    """An exclusive advisory lock on ``lock_path`` (POSIX flock) for the duration of the block."""
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def quick_results(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest):
    """Every registered claim run once at quick scale (process pool), stored in a temp directory.

    Under pytest-xdist the workers share one computation: the first worker to get the lock computes the run into a
    shared store, the others then find every point stored and only assess; each worker's tests get a private copy.
    The points of the main job's store (``$GENTHEORY_TEST_RESULTS``, else the store the README's first command
    writes, :func:`~gentheory.verify.default_results_dir`) whose key matches the current code, params, config and
    seed are copied in first (:func:`~gentheory.verify.runner.import_current_points`), so a user who ran the main
    job computes nothing twice; a clean checkout (CI) has no such store and computes everything.
    ``GENTHEORY_TEST_RESULTS=`` (empty) recomputes regardless. The given directory is never written, and the temp
    store holds one version of each run.
    """
    from gentheory.verify import ResultStore, all_claims, default_results_dir, run_claims
    from gentheory.verify.runner import import_current_points

    base = tmp_path_factory.getbasetemp()
    under_xdist = hasattr(request.config, "workerinput")  # a pytest-xdist worker: its base temp is per worker
    shared = (base.parent if under_xdist else base) / "quick-results"
    with _exclusive(shared.with_suffix(".lock")):
        given = os.environ.get("GENTHEORY_TEST_RESULTS", str(default_results_dir(ROOT)))
        if given and Path(given).is_dir() and not shared.exists():
            import_current_points(given, ResultStore(shared), all_claims(), scale="quick")
        verdicts = run_claims(all_claims(), scale="quick", store=ResultStore(shared), executor="process",
                              progress=False)
        # Each worker's tests get a private copy, taken while no worker writes: a test that copies or edits its
        # store must not race another worker's verdict writes into the shared one.
        root = shared if not under_xdist else base / "quick-results"
        if under_xdist:
            shutil.copytree(shared, root)
    return ResultStore(root), {v.claim: v for v in verdicts}
