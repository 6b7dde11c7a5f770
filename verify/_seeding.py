"""Seeding and canonical serialisation.

A sweep point's random stream depends only on its identity:
``SeedSequence([base_seed, stable_hash(claim id), stable_hash(params digest)])``; replicate r uses
``spawn`` child r. Hashes use SHA-256 (never the per-process salted built-in ``hash``), so results
do not depend on order, worker count or executor.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from typing import Any

import numpy as np

__all__ = ["canonical_json", "digest", "stable_hash", "point_seed", "to_jsonable"]


def to_jsonable(obj: Any) -> Any:
    """Convert dataclasses, numpy scalars/arrays, tuples and non-finite floats to plain JSON."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return "inf" if obj > 0 else ("-inf" if obj < 0 else "nan")
    return obj


def canonical_json(obj: Any) -> str:
    """Deterministic JSON text (sorted keys, no whitespace, floats by ``repr``)."""
    return json.dumps(to_jsonable(obj), sort_keys=True, separators=(",", ":"), allow_nan=False)


def digest(obj: Any) -> str:
    """SHA-256 hex digest of :func:`canonical_json` of ``obj``.

    >>> digest({"a": 1}) == digest({"a": 1})
    True
    """
    return hashlib.sha256(canonical_json(obj).encode()).hexdigest()


def stable_hash(text: str) -> int:
    """A 64-bit integer from SHA-256 of ``text``, identical in every process and on every machine: the first
    8 bytes of the UTF-8 digest, little-endian.

    >>> stable_hash("grokking.null_multiplier")
    3092469129221647382
    >>> stable_hash("") == int.from_bytes(bytes.fromhex("e3b0c44298fc1c14"), "little")  # SHA-256 of b"" begins e3b0c442
    True
    """
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def point_seed(base_seed: int, claim_id: str, params: Any) -> np.random.SeedSequence:
    """Root seed of one sweep point of one claim."""
    return np.random.SeedSequence([int(base_seed), stable_hash(claim_id), stable_hash(digest(params))])
