"""Exact layer of gentheory: closed forms, SymPy derivations, rational and group-theoretic computation.

One module per study. Functions return :class:`sympy.Expr` (rationals, never floats) and validate
their inputs with SymPy's three-valued rule: only a provably invalid argument is rejected, so
symbolic arguments pass through.

Modules
-------
augmentation
    Random-feature ridge on augmented data: exact limits and the Helmert decomposition (Morisset, Durmus & Hardy 2026).
double_descent
    Double descent as a dynamical phase transition: exact exponents, scaling functions, finite-N means (Li & Goldenfeld 2026).
grokking
    Heavy-ball mode algebra and the weight-decay clock (Kim 2026, arXiv:2607.23967).
perceptron
    Binary perceptron: exact first-moment (annealed) results and high-precision reference values.
strata
    Strata of Hom(C, U(d)), overlap gaps, amalgam components and task families (Q8 seed paper, 2026).
transitive
    Transitive inference with an exception: exact kernel ridge regression in rationals.
_groups
    Finite groups as integer tables: closure, Todd–Coxeter, subgroup lattices, certified characters.
_validation
    Input validation shared by every layer: :class:`ParameterError` (names the parameter, value and range), the
    argument gate ``checked_arguments`` of every public function, ``check_range``, ``check_int``, ``exact``.
"""
from gentheory.theory._validation import ParameterError

__all__ = ["ParameterError"]
