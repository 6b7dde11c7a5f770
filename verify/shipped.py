r"""The paper-scale results store shipped in the repository: write it, check it, read from it.

Paper scale costs core-hours; a user who wants the paper figures should not have to pay them first. The
checkout therefore carries ``paper-results/`` (:data:`SHIPPED_DIRNAME`), a :class:`~gentheory.verify._storage.ResultStore`
holding, for each claim, its paper-scale verdict and exactly the points that verdict assesses (JSON + NPZ, each with its
own SHA-256), the report of those verdicts and ``MANIFEST.json``: every file with its size and SHA-256, and per claim
its point keys, status and cost.

A shipped point is used only under the key the current code gives it (:func:`~gentheory.verify._keys.point_key`: the
claim, params, config, base seed and the code its study executes), so a shipped number is always one the current code
would compute bit for bit. A study edited after its points were shipped makes them *stale*: they are no longer read,
:func:`stale_claims` names them and the command that recomputes them (:func:`refresh_command`), and a test fails
until they are shipped again.

Reading: ``gentheory run --scale paper`` copies the current shipped points into the user's store before it computes
(``--fresh`` recomputes); ``gentheory figures --scale paper`` and ``gentheory report --scale paper`` fall back to a
current shipped verdict for a claim the user's store lacks (:class:`ShippedFallbackStore`). Writing: ``gentheory ship``
(:func:`ship`) copies the current paper-scale verdicts of a results directory in, drops what no verdict references and
rewrites the manifest.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from gentheory.verify._keys import sweep_keys
from gentheory.verify._storage import ResultStore, atomic_write_bytes, project_root, provenance
from gentheory.verify.claims import all_claims, get_claim
from gentheory.verify.core import SUCCESS, Claim, Verdict

__all__ = ["SHIPPED_DIRNAME", "SHIPPED_SCALE", "MANIFEST_NAME", "MAX_SHIPPED_BYTES", "shipped_results_dir",
           "current_keys", "verdict_is_current", "ship", "ShipResult", "manifest_problems", "stale_claims",
           "refresh_command", "ShippedFallbackStore", "reusable_stores"]

#: the shipped store's folder at the project root
SHIPPED_DIRNAME = "paper-results"
#: the one scale the shipped store holds
SHIPPED_SCALE = "paper"
#: the manifest's file name inside the shipped store
MANIFEST_NAME = "MANIFEST.json"
#: the size the shipped store must stay under (issue 34: "keep it reasonable, e.g. under 50 MB")
MAX_SHIPPED_BYTES = 50 * 2**20
#: the manifest layout; a reader refuses another
MANIFEST_FORMAT = 1


def shipped_results_dir(start: str | os.PathLike | None = None) -> Path | None:
    """``paper-results`` at the project root (see :func:`~gentheory.verify._storage.project_root`), or None outside a
    checkout or when the folder is absent (an installed wheel carries no results)."""
    root = project_root(None if start is None else Path(start))
    if root is None or not (root / SHIPPED_DIRNAME).is_dir():
        return None
    return root / SHIPPED_DIRNAME


def current_keys(claim: Claim, scale: str = SHIPPED_SCALE, base_seed: int = 0) -> list[str]:
    """The point keys the current code gives the sweep of ``claim`` at ``scale`` (default: the shipped scale) and
    ``base_seed``, in sweep order (:func:`~gentheory.verify._keys.sweep_keys`)."""
    return sweep_keys(claim, scale, base_seed)


def verdict_is_current(verdict: Verdict, claim: Claim | None = None, base_seed: int = 0) -> bool:
    """True if ``verdict`` assesses exactly the points the current code would compute (same keys, same order)."""
    claim = get_claim(verdict.claim) if claim is None else claim
    return [p.key for p in verdict.points] == current_keys(claim, verdict.scale, base_seed)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _claim_files(store: ResultStore, claim_id: str, keys: Sequence[str]) -> list[Path]:
    """The verdict and the point files (JSON, and NPZ where a point has arrays) of one claim at the shipped scale."""
    files = [store.root / claim_id / SHIPPED_SCALE / "verdict.json"]
    for key in keys:
        json_path = store.point_path(claim_id, SHIPPED_SCALE, key)
        files.append(json_path)
        if json_path.with_suffix(".npz").exists():
            files.append(json_path.with_suffix(".npz"))
    return files


@dataclass
class ShipResult:
    """What :func:`ship` did: the claims copied in or kept, and those it could not ship (with the reason)."""

    shipped: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    not_shipped: dict[str, str] = field(default_factory=dict)
    removed_files: int = 0
    total_bytes: int = 0

    def render(self) -> str:
        lines = [f"shipped {len(self.shipped)} claims, kept {len(self.kept)} already current, "
                 f"{self.total_bytes / 2**20:.2f} MB in all; {self.removed_files} unreferenced files removed"]
        lines += [f"  not shipped: {cid} ({why})" for cid, why in sorted(self.not_shipped.items())]
        return "\n".join(lines)


def ship(source: str | os.PathLike, dest: str | os.PathLike, claims: Sequence[Claim] | None = None, *,
         base_seed: int = 0) -> ShipResult:
    """Copy the current paper-scale verdicts of the results directory ``source`` into the shipped store ``dest``.

    For each claim (default: every registered one) the verdict of ``source`` is shipped when it is current (its
    points are those the current code computes, :func:`verdict_is_current`) and succeeded (PASS, or REFUTED as
    registered); otherwise a current verdict already in ``dest`` is kept, and else the claim is listed as not shipped.
    Then every file of ``dest`` that no shipped verdict references is removed, the report of the shipped verdicts is
    written (``report.md``, ``report.json``) and the manifest is rewritten. ``source`` is only read.

    Raises
    ------
    ValueError
        If the shipped store would exceed :data:`MAX_SHIPPED_BYTES`.
    """
    from gentheory.verify.report import REPORT_FILES, write_reports

    src, out = ResultStore(source), ResultStore(dest)
    claims = all_claims() if claims is None else list(claims)
    result = ShipResult()
    entries: dict[str, dict[str, Any]] = {}
    verdicts: list[Verdict] = []
    old = _read_manifest(out.root)
    for claim in claims:
        keys = current_keys(claim, SHIPPED_SCALE, base_seed)
        chosen: Verdict | None = None
        reason = "no stored paper-scale verdict"
        candidate = src.load_verdict(claim.id, SHIPPED_SCALE)
        if candidate is not None:
            if not verdict_is_current(candidate, claim, base_seed):
                reason = "its stored points are stale (the code or design changed since they were computed)"
            elif candidate.status not in SUCCESS:
                reason = f"its verdict is {candidate.status}"
            else:
                chosen = candidate
        if chosen is not None and Path(source).resolve() != out.root.resolve():
            for f in _claim_files(src, claim.id, keys):
                target = out.root / f.relative_to(src.root)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, target)
            result.shipped.append(claim.id)
        elif chosen is None:
            kept = out.load_verdict(claim.id, SHIPPED_SCALE)
            if kept is not None and verdict_is_current(kept, claim, base_seed) and kept.status in SUCCESS:
                chosen = kept
                result.kept.append(claim.id)
            else:
                result.not_shipped[claim.id] = reason
                continue
        else:
            result.kept.append(claim.id)
        assert chosen is not None
        verdicts.append(chosen)
        previous = old.get("claims", {}).get(claim.id, {}) if old else {}
        entries[claim.id] = {
            "status": chosen.status,
            "points": keys,
            "cpu_seconds": round(sum(p.elapsed for p in chosen.points), 1),
            "git": chosen.provenance.get("git"),
            "shipped": previous.get("shipped") if previous.get("points") == keys else None,
        }
        if entries[claim.id]["shipped"] is None:
            entries[claim.id]["shipped"] = datetime.date.today().isoformat()
    wanted = {f.relative_to(out.root) for cid, e in entries.items() for f in _claim_files(out, cid, e["points"])}
    for f in sorted(p for p in out.root.rglob("*") if p.is_file()):
        rel = f.relative_to(out.root)
        if rel not in wanted and str(rel) not in (*REPORT_FILES, MANIFEST_NAME):
            f.unlink()
            result.removed_files += 1
    for d in sorted((p for p in out.root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()
    order = {c.id: i for i, c in enumerate(claims)}
    verdicts.sort(key=lambda v: order[v.claim])
    write_reports(out, verdicts)
    files = sorted(wanted | {Path(name) for name in REPORT_FILES})
    file_table: dict[str, dict[str, Any]] = {str(rel): {"bytes": (out.root / rel).stat().st_size, "sha256": _sha256(out.root / rel)}
                  for rel in files}
    manifest: dict[str, Any] = {
        "format": MANIFEST_FORMAT,
        "scale": SHIPPED_SCALE,
        "base_seed": base_seed,
        "written_with": provenance(),
        "claims": entries,
        "not_shipped": dict(sorted(result.not_shipped.items())),
        "files": file_table,
    }
    result.total_bytes = sum(f["bytes"] for f in file_table.values())
    if result.total_bytes > MAX_SHIPPED_BYTES:
        raise ValueError(f"the shipped store would hold {result.total_bytes / 2**20:.1f} MB, over the "
                         f"{MAX_SHIPPED_BYTES / 2**20:.0f} MB limit (MAX_SHIPPED_BYTES): ship fewer arrays")
    atomic_write_bytes(out.root / MANIFEST_NAME, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    return result


def _read_manifest(root: Path) -> dict[str, Any] | None:
    path = root / MANIFEST_NAME
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text(encoding="utf-8"))
    if manifest.get("format") != MANIFEST_FORMAT or manifest.get("scale") != SHIPPED_SCALE:
        raise ValueError(f"{path}: manifest format {manifest.get('format')!r} at scale {manifest.get('scale')!r}; "
                         f"this version reads format {MANIFEST_FORMAT} at scale {SHIPPED_SCALE!r}")
    return manifest


def manifest_problems(root: str | os.PathLike) -> list[str]:
    """Every way the shipped store at ``root`` departs from its manifest: a listed file missing or with another size
    or SHA-256, a file the manifest does not list, a claim whose verdict file is not listed. Empty when intact."""
    root = Path(root)
    manifest = _read_manifest(root)
    if manifest is None:
        return [f"{root / MANIFEST_NAME} is missing"]
    problems = []
    listed = manifest["files"]
    for rel, meta in sorted(listed.items()):
        path = root / rel
        if not path.is_file():
            problems.append(f"{rel}: listed in the manifest but absent")
        elif path.stat().st_size != meta["bytes"] or _sha256(path) != meta["sha256"]:
            problems.append(f"{rel}: size or SHA-256 differs from the manifest")
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != MANIFEST_NAME):
        if str(path.relative_to(root)) not in listed:
            problems.append(f"{path.relative_to(root)}: not listed in the manifest")
    for cid in manifest["claims"]:
        if f"{cid}/{SHIPPED_SCALE}/verdict.json" not in listed:
            problems.append(f"{cid}: its verdict is not listed in the manifest")
    return problems


def stale_claims(root: str | os.PathLike, claims: Sequence[Claim] | None = None) -> dict[str, str]:
    """The shipped claims whose points the current code no longer computes, each with what changed.

    A claim is stale when the keys the current code gives its paper-scale sweep differ from the shipped ones (its
    study's code, its params or config changed), or when it is shipped but no longer registered.
    """
    manifest = _read_manifest(Path(root))
    if manifest is None:
        return {}
    registered = {c.id: c for c in (all_claims() if claims is None else claims)}
    out = {}
    for cid, entry in manifest["claims"].items():
        if cid not in registered:
            out[cid] = "shipped but no longer registered"
            continue
        keys = current_keys(registered[cid], SHIPPED_SCALE, manifest["base_seed"])
        if keys != entry["points"]:
            changed = sum(a != b for a, b in zip(keys, entry["points"])) + abs(len(keys) - len(entry["points"]))
            out[cid] = f"{changed} of {len(keys)} point keys changed (its study's code, params or config)"
    return out


def refresh_command(claim_ids: Sequence[str]) -> str:
    """The commands that recompute ``claim_ids`` at paper scale and ship them again."""
    ids = " ".join(sorted(claim_ids))
    return (f"python -m gentheory run {ids} --scale paper --results paper-run && "
            f"python -m gentheory ship paper-run")


class ShippedFallbackStore(ResultStore):
    """A results directory that, at paper scale, falls back to the shipped store for a claim it has no verdict of.

    A shipped verdict is used only when current (:func:`verdict_is_current`); the claims whose shipped verdict was
    stale are collected in :attr:`stale` (so an error can name them). Writes go to ``root`` only.
    """

    def __init__(self, root: str | os.PathLike, shipped: str | os.PathLike | None) -> None:
        super().__init__(root)
        self.shipped = None if shipped is None else ResultStore(shipped)
        self.stale: list[str] = []
        self.used: list[str] = []

    def load_verdict(self, claim_id: str, scale: str) -> Any | None:
        verdict = super().load_verdict(claim_id, scale)
        if verdict is not None or scale != SHIPPED_SCALE or self.shipped is None:
            return verdict
        verdict = self.shipped.load_verdict(claim_id, scale)
        if verdict is None:
            return None
        try:
            current = verdict_is_current(verdict)
        except KeyError:  # shipped for a claim that is no longer registered
            current = False
        if not current:
            self.stale.append(claim_id)
            return None
        self.used.append(claim_id)
        return verdict


def reusable_stores(scale: str, start: str | os.PathLike | None = None) -> list[Path]:
    """Results directories whose current points a run at ``scale`` may copy instead of computing: the shipped store
    at paper scale (when the checkout has one), nothing at quick scale."""
    shipped = shipped_results_dir(start)
    return [shipped] if scale == SHIPPED_SCALE and shipped is not None else []
