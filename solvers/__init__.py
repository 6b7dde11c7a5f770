"""Numerical layer of gentheory: fixed points, saddle points, quadrature, spectra.

Pure functions with keyword-only options returning frozen result dataclasses. A solver that does
not reach its stated tolerance raises :class:`SolverConvergenceError`; none returns a silent last
iterate.

Modules
-------
grokking
    Vectorised heavy-ball mode multipliers, exact grokking times, exact risk curves of linear
    problems and the range / grokking-subspace / inactive decomposition.
"""
from solvers._errors import SolverConvergenceError
from theory._validation import ParameterError

__all__ = ["ParameterError", "SolverConvergenceError"]
