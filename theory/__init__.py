"""Exact layer of gentheory: closed forms, SymPy derivations, rational and group-theoretic computation.

One module per study. Functions return :class:`sympy.Expr` (rationals, never floats) and validate
their inputs with SymPy's three-valued rule: only a provably invalid argument is rejected, so
symbolic arguments pass through.

Modules
-------
grokking
    Heavy-ball mode algebra and the weight-decay clock (Kim 2026, arXiv:2607.23967).
"""
from theory._validation import ParameterError

__all__ = ["ParameterError"]
