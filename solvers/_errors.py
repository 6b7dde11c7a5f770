"""Errors raised by the numerical layer."""
from __future__ import annotations

from typing import Any

__all__ = ["SolverConvergenceError"]


class SolverConvergenceError(RuntimeError):
    """A solver stopped without meeting its stated tolerance.

    The partial result is attached as ``result`` (with ``residual`` and ``n_iter``) so a caller can
    inspect it, but it is never returned as if it were an answer.
    """

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result
