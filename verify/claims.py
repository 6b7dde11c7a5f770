"""The registry of every claim, filled by importing the study modules.

:mod:`gentheory.verify.core` defines :func:`~gentheory.verify.core.register` and imports no study; this module imports the
studies (:func:`load_studies`) and reads the registry, so the import graph has no circle. The CLI, the
runner, tests and notebooks reach claims through the accessors here (or the same names re-exported by
:mod:`gentheory.verify`). Add a study by adding its name to :data:`STUDIES` (see the README, "Adding a study").
"""
from __future__ import annotations

import importlib

from gentheory.verify.core import REGISTRY, Claim

__all__ = ["STUDIES", "load_studies", "claim_ids", "get_claim", "all_claims"]

STUDIES = ("augmentation", "double_descent", "grokking", "perceptron", "strata", "transitive")


def load_studies() -> None:
    """Import every study's ``verify`` module, registering its claims (idempotent)."""
    for study in STUDIES:
        importlib.import_module(f"gentheory.verify.{study}")


def claim_ids() -> list[str]:
    """Every registered claim id, sorted."""
    load_studies()
    return sorted(REGISTRY)


def get_claim(claim_id: str) -> Claim:
    """The registered claim with this id; a study prefix alone is not accepted."""
    load_studies()
    try:
        return REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"unknown claim {claim_id!r}; registered: {', '.join(sorted(REGISTRY))}") from None


def all_claims(selection: list[str] | None = None) -> list[Claim]:
    """Claims matching ``selection`` (ids or study names such as ``"grokking"``); all if None."""
    load_studies()
    if not selection:
        return [REGISTRY[c] for c in sorted(REGISTRY)]
    out: list[Claim] = []
    for sel in selection:
        hits = [c for c in sorted(REGISTRY) if c == sel or c.split(".")[0] == sel]
        if not hits:
            raise KeyError(f"no claim or study {sel!r}; registered: {', '.join(sorted(REGISTRY))}")
        out.extend(REGISTRY[h] for h in hits if REGISTRY[h] not in out)
    return out
