"""Results store: atomic JSON (+ NPZ for arrays) with checksums and provenance. Never pickle.

Layout under the results root::

    <claim id>/<scale>/points/<key>.json   one sweep point (theory, simulation, rivals, seeds, timing)
    <claim id>/<scale>/points/<key>.npz    its arrays for figures (if any)
    <claim id>/<scale>/verdict.json        the verdict over the sweep
    report.md, report.json                 the last report

Every file is written to a temporary name in the same directory and renamed, so a reader sees
either the old or the new file, never a partial one. Each JSON carries the SHA-256 of its own
payload and of its NPZ; a file that fails the check (truncated, edited, corrupted) is reported with
a :class:`ResultIntegrityWarning` and treated as missing, so a run recomputes it, never silently uses it.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from gentheory.verify._seeding import canonical_json

__all__ = ["ResultStore", "ResultIntegrityWarning", "atomic_write_bytes", "provenance"]


class ResultIntegrityWarning(UserWarning):
    """A stored result failed its checksum or could not be parsed; it will be recomputed."""


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same directory, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _npz_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **{k: np.asarray(v) for k, v in arrays.items()})  # type: ignore[arg-type]  # numpy's stub types the first name only
    return buf.getvalue()


@lru_cache(maxsize=1)
def _git_commit() -> dict[str, Any]:
    root = Path(__file__).resolve().parent.parent
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
        if sha.returncode == 0:
            return {"commit": sha.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        pass
    return {"commit": None, "dirty": None}


#: the results directory's name, under the project root or the working folder
RESULTS_DIRNAME = "gentheory-results"


def project_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above ``start`` (default: the working folder) whose ``pyproject.toml`` is this
    project's (``[project] name = "gentheory"``); None outside a checkout."""
    import tomllib

    here = (Path.cwd() if start is None else Path(start)).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                name = tomllib.loads(candidate.read_text()).get("project", {}).get("name")
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                continue
            if name == "gentheory":
                return folder
    return None


def default_results_dir(start: Path | None = None) -> Path:
    """Where the CLI and the notebooks keep results unless told otherwise: ``$GENTHEORY_RESULTS``, else
    ``gentheory-results`` at the project root, else in the working folder — so a notebook started in
    ``notebooks/`` finds what ``gentheory run`` at the root computed."""
    given = os.environ.get("GENTHEORY_RESULTS")
    if given:
        return Path(given)
    root = project_root(start)
    return (root if root is not None else (Path.cwd() if start is None else Path(start))) / RESULTS_DIRNAME


def provenance() -> dict[str, Any]:
    """Package versions, interpreter, platform and git commit of this checkout."""
    import importlib.metadata as md

    versions: dict[str, str | None] = {}
    for pkg in ("gentheory", "numpy", "scipy", "sympy", "mpmath", "networkx", "matplotlib"):
        try:
            versions[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            versions[pkg] = None
    return {
        "versions": versions,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "git": _git_commit(),
    }


#: a point key as :func:`gentheory.verify._keys.point_key` makes it: 32 lowercase hex digits (never a path)
_KEY = re.compile(r"[0-9a-f]{32}")


def _distrust(path: Path, reason: Any) -> None:
    """Warn that a stored file is unusable; the caller then treats it as missing (a run recomputes it)."""
    warnings.warn(f"{path}: {reason}; treated as missing (`gentheory run` recomputes it)", ResultIntegrityWarning,
                  stacklevel=4)


def _rebuilt(path: Path, kind: str, build: Callable[[], Any]) -> Any | None:
    """``build()`` (an object from a file's checked payload), or None after a warning when the payload is not a
    well-formed ``kind``: the checksum proves the file intact, not that it holds what it should."""
    try:
        return build()
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        _distrust(path, f"not a well-formed {kind} ({type(exc).__name__}: {exc})")
        return None


class ResultStore:
    """A directory of stored points and verdicts (see module docstring).

    The checksums protect against accidents (a truncated write, a disk error, an edit by hand), not against an
    adversary who can write into the directory; a file whose checksum holds but whose content is not a well-formed
    point or verdict is distrusted like a corrupted one, and keys read from files are checked to be digests before
    they name a path.
    """

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)

    def _dir(self, claim_id: str, scale: str) -> Path:
        return self.root / claim_id / scale

    def points_dir(self, claim_id: str, scale: str) -> Path:
        """The directory holding a claim's points at ``scale``."""
        return self._dir(claim_id, scale) / "points"

    def point_path(self, claim_id: str, scale: str, key: str) -> Path:
        if not _KEY.fullmatch(key):
            raise ValueError(f"point key {key!r} is not a 32-digit hex digest")
        return self.points_dir(claim_id, scale) / f"{key}.json"

    # ---------------------------------------------------------------- generic checked JSON
    def _write_checked(self, path: Path, payload: dict[str, Any], arrays: Mapping[str, np.ndarray] | None = None) -> None:
        payload = dict(payload)
        if arrays:
            blob = _npz_bytes(arrays)
            atomic_write_bytes(path.with_suffix(".npz"), blob)
            payload["npz_sha256"] = _sha(blob)
        body = canonical_json(payload)
        text = json.dumps({"sha256": _sha(body.encode()), "payload": json.loads(body)}, indent=1, sort_keys=True)
        atomic_write_bytes(path, text.encode())

    def _read_checked(self, path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
        if not path.exists():
            return None
        try:
            outer = json.loads(path.read_text())
            payload = outer["payload"]
            if _sha(canonical_json(payload).encode()) != outer["sha256"]:
                raise ValueError("checksum mismatch")
            arrays: dict[str, np.ndarray] = {}
            if "npz_sha256" in payload:
                blob = path.with_suffix(".npz").read_bytes()
                if _sha(blob) != payload["npz_sha256"]:
                    raise ValueError("NPZ checksum mismatch")
                with np.load(io.BytesIO(blob), allow_pickle=False) as z:
                    arrays = {k: z[k] for k in z.files}
            return payload, arrays
        except (OSError, ValueError, KeyError, TypeError) as exc:
            _distrust(path, exc)
            return None

    # ---------------------------------------------------------------- points
    def save_point(self, scale: str, point: Any) -> None:
        self._write_checked(self.point_path(point.claim, scale, point.key), point.to_dict(), point.aux or None)

    def load_point(self, claim_id: str, scale: str, key: str) -> Any | None:
        from gentheory.verify.core import PointResult

        path = self.point_path(claim_id, scale, key)
        got = self._read_checked(path)
        if got is None:
            return None
        payload, arrays = got
        point = _rebuilt(path, "point", lambda: PointResult.from_dict(payload, arrays))
        if point is None:
            return None
        if point.claim != claim_id or point.key != key:
            _distrust(path, f"holds the point {point.claim}/{point.key}, not {claim_id}/{key}")
            return None
        return point

    # ---------------------------------------------------------------- verdicts
    def save_verdict(self, verdict: Any) -> None:
        path = self._dir(verdict.claim, verdict.scale) / "verdict.json"
        d = verdict.to_dict(with_points=False)
        d["point_keys"] = [p.key for p in verdict.points]
        # per-point assessments live in the verdict (they depend on the whole sweep through m)
        d["point_assessment"] = {p.key: p.assessment.to_dict() for p in verdict.points if p.assessment is not None}
        self._write_checked(path, d)

    def load_verdict(self, claim_id: str, scale: str) -> Any | None:
        from gentheory.verify.core import PointAssessment, RivalOutcome, Verdict

        path = self._dir(claim_id, scale) / "verdict.json"
        got = self._read_checked(path)
        if got is None:
            return None
        d, _ = got

        def build() -> Any | None:
            keys = d.pop("point_keys")
            if not isinstance(keys, list) or not all(isinstance(k, str) and _KEY.fullmatch(k) for k in keys):
                raise ValueError("its point keys are not 32-digit hex digests")
            assessment = d.pop("point_assessment", {})
            points = []
            for key in keys:
                p = self.load_point(claim_id, scale, key)
                if p is None:
                    return None
                if key in assessment:
                    p.assessment = PointAssessment.from_dict(assessment[key])
                points.append(p)
            # non-finite floats are stored as the strings "inf", "-inf", "nan" (strict JSON)
            for name in ("z_max", "z_star", "delta_min_ratio", "relevance_ratio", "alpha", "elapsed"):
                d[name] = float(d[name])
            d["rivals"] = [RivalOutcome.from_dict(r) for r in d["rivals"]]
            return Verdict(points=points, **d)

        verdict = _rebuilt(path, "verdict", build)
        if verdict is None:
            return None
        if verdict.claim != claim_id or verdict.scale != scale:
            _distrust(path, f"holds the verdict of {verdict.claim} at {verdict.scale!r}, not {claim_id} at {scale!r}")
            return None
        return verdict

    def verdict_paths(self, scale: str | None = None) -> list[Path]:
        pattern = f"*/{scale}/verdict.json" if scale else "*/*/verdict.json"
        return sorted(self.root.glob(pattern))

    def write_text(self, name: str, text: str) -> Path:
        path = self.root / name
        atomic_write_bytes(path, text.encode())
        return path
