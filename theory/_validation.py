"""Input validation shared by every layer.

A bad argument raises :class:`ParameterError` whose message names the parameter, the value
received and the allowed range, e.g. ``"beta = 1.2 is outside [0, 1)"``.
"""
from __future__ import annotations

import functools
import inspect
import math
import operator
from collections.abc import Callable
from numbers import Real
from typing import Any

import sympy as sp

__all__ = ["ParameterError", "check_range", "check_choice", "check_int", "exact", "checked_arguments"]


class ParameterError(ValueError):
    """An argument is outside its documented domain.

    Raised at the boundary of a public function or in a ``Params.__post_init__``. The message always
    has the form ``"<name> = <value> is outside <range>"`` plus, where useful, why the range exists
    (for instance: the heavy-ball mode is unstable there).
    """


def _interval(low: Any, high: Any, low_open: bool, high_open: bool, infinite: bool = False) -> str:
    lo = "-inf" if low is None else f"{low}"
    hi = "inf" if high is None else f"{high}"
    left = "(" if low_open or (low is None and not infinite) else "["
    right = ")" if high_open or (high is None and not infinite) else "]"
    return f"{left}{lo}, {hi}{right}"


def check_range(
    name: str,
    value: Any,
    *,
    low: Any = None,
    high: Any = None,
    low_open: bool = False,
    high_open: bool = False,
    infinite: bool = False,
    why: str = "",
) -> Any:
    """Return ``value`` if it may lie in the interval, else raise :class:`ParameterError`.

    Numbers (also 0-d numeric arrays) are checked exactly. SymPy expressions are rejected only when the violation
    is provable (SymPy's three-valued rule), so ``beta = Symbol('beta')`` passes. NaN is always rejected; strings
    (never evaluated), lists, arrays with a shape and other objects are refused as not numbers.

    An unbounded side (``low`` or ``high`` None) is open: ±inf (``math.inf``, ``sympy.oo``) is refused unless
    ``infinite`` is set, for parameters whose limit is part of the domain (β = ∞ zero temperature, t = ∞ the
    end of training, k = ∞ the expected augmented loss). Finite bounds keep their own ``low_open``/``high_open``.

    Examples
    --------
    >>> check_range("eta", 0.1, low=0, low_open=True)
    0.1
    >>> check_range("beta", 1.0, low=0, high=1, high_open=True)
    Traceback (most recent call last):
    ...
    gentheory.theory._validation.ParameterError: beta = 1.0 is outside [0, 1)
    >>> check_range("eta", "__import__('os')", low=0)
    Traceback (most recent call last):
    ...
    gentheory.theory._validation.ParameterError: eta = "__import__('os')" is a string, not a number; expected a value in [0, inf) (strings are never evaluated)
    >>> check_range("beta", float("inf"), low=0)
    Traceback (most recent call last):
    ...
    gentheory.theory._validation.ParameterError: beta = inf is outside [0, inf)
    >>> check_range("beta", float("inf"), low=0, infinite=True)
    inf
    """
    rng = _interval(low, high, low_open, high_open, infinite)
    suffix = f": {why}" if why else ""
    if isinstance(value, bool) or value is None:
        raise ParameterError(f"{name} = {value!r} is not a number; expected a value in {rng}{suffix}")
    if isinstance(value, (str, bytes)):
        # never sympify a string: SymPy's parser evaluates it as Python code
        raise ParameterError(f"{name} = {value!r} is a string, not a number; expected a value in {rng}{suffix} "
                             "(strings are never evaluated)")
    number = _is_real(value)  # also a 0-d real array; theory/ itself imports no numpy
    if not number and not isinstance(value, sp.Basic):
        shape = getattr(value, "shape", None)
        if shape is None and isinstance(value, (list, tuple)):
            shape = (len(value),)
        shape = f" of shape {shape}" if shape is not None else ""
        raise ParameterError(f"{name} = {value!r} is not a number (a {type(value).__name__}{shape}); expected a "
                             f"value in {rng}{suffix}")
    if number:
        v = float(value)
        if math.isnan(v):
            raise ParameterError(f"{name} = nan is outside {rng}{suffix}")
        bad = (
            (low is not None and (v < low or (low_open and v == low)))
            or (high is not None and (v > high or (high_open and v == high)))
            or (math.isinf(v) and not infinite)
        )
    else:
        expr = value
        if expr.is_infinite and not infinite:
            raise ParameterError(f"{name} = {value} is outside {rng}{suffix}")
        if expr.is_extended_real is False or (expr.is_real is False and not expr.is_infinite):
            raise ParameterError(f"{name} = {value} is not real; expected a value in {rng}{suffix}")
        conds = []
        if low is not None:
            conds.append((expr > low) if low_open else (expr >= low))
        if high is not None:
            conds.append((expr < high) if high_open else (expr <= high))
        bad = any(c is sp.false for c in (sp.sympify(c) for c in conds))
    if bad:
        raise ParameterError(f"{name} = {value} is outside {rng}{suffix}")
    return value


def check_int(name: str, value: Any, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an ``int`` if it is an integer in ``[low, high]``, else raise.

    >>> check_int("n_train", 3, low=1)
    3
    """
    if isinstance(value, bool) or not isinstance(value, (int,)) and not (
        hasattr(value, "__index__")
    ):
        raise ParameterError(f"{name} = {value!r} is not an integer")
    check_range(name, int(value), low=low, high=high)
    return int(value)


def check_choice(name: str, value: Any, choices: tuple[Any, ...]) -> Any:
    """Return ``value`` if it is one of ``choices``, else raise naming the valid ones.

    >>> check_choice("coupling", "coupled", ("coupled", "decoupled"))
    'coupled'
    """
    if value not in choices:
        raise ParameterError(f"{name} = {value!r} is not one of {choices}")
    return value


def exact(name: str, value: Any, *, rational: bool = False) -> sp.Expr:
    """``value`` as a SymPy expression, for the exact layer: numbers and SymPy expressions (symbols included) pass,
    anything else raises :class:`ParameterError` naming the parameter.

    ``sympy.sympify`` would parse a string as Python code, so strings are refused, as are None, booleans, lists,
    arrays with a shape, complex numbers and NaN. ``rational`` converts floats to the rational they print as
    (``sympy.nsimplify`` of the expression), for functions that solve exactly. Ranges are the caller's (:func:`check_range`).

    >>> exact("a", 0.5, rational=True)
    1/2
    >>> exact("a", "1/2")
    Traceback (most recent call last):
    ...
    gentheory.theory._validation.ParameterError: a = '1/2' is a string, not a number (strings are never evaluated)
    """
    if isinstance(value, (str, bytes)):
        raise ParameterError(f"{name} = {value!r} is a string, not a number (strings are never evaluated)")
    if isinstance(value, sp.Basic):
        if value.has(sp.nan):
            raise ParameterError(f"{name} = {value} contains nan")
        expr = value
    else:
        number = _is_real(value)
        if isinstance(value, bool) or not number:
            raise ParameterError(f"{name} = {value!r} is not a number or a SymPy expression "
                                 f"(a {type(value).__name__})")
        if math.isnan(float(value)):
            raise ParameterError(f"{name} = nan is not a number")
        expr = sp.sympify(value.item() if hasattr(value, "item") else value)
    return sp.nsimplify(expr) if rational else expr


def _is_real(value: Any) -> bool:
    """A real number: a Python/NumPy scalar or a 0-d real array, not a bool (theory/ imports no numpy)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return False
    return isinstance(value, Real) or (getattr(value, "shape", None) == ()
                                       and getattr(getattr(value, "dtype", None), "kind", "?") in "iuf")


def _refuse_text(name: str, value: Any) -> None:
    if isinstance(value, (str, bytes)):
        raise ParameterError(f"{name} = {value!r} is a string, not a number (strings are never evaluated)")


def _check_float(name: str, value: Any) -> None:
    _refuse_text(name, value)
    if not _is_real(value):
        raise ParameterError(f"{name} = {value!r} is not a real number (a {type(value).__name__})")
    if math.isnan(float(value)):
        raise ParameterError(f"{name} = nan is not a number")


def _check_integer(name: str, value: Any) -> None:
    _refuse_text(name, value)
    try:
        operator.index(value)  # ints, NumPy integers and 0-d integer arrays
    except TypeError:
        raise ParameterError(f"{name} = {value!r} is not an integer (a {type(value).__name__})") from None
    if not _is_real(value):
        raise ParameterError(f"{name} = {value!r} is not an integer (a {type(value).__name__})")


def _check_text(name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise ParameterError(f"{name} = {value!r} is not a string (a {type(value).__name__})")


def _check_flag(name: str, value: Any) -> None:
    if not (isinstance(value, bool) or type(value).__name__ == "bool_"):
        raise ParameterError(f"{name} = {value!r} is not True or False (a {type(value).__name__})")


def _check_expression(name: str, value: Any) -> None:
    exact(name, value)


def _check_symbol(name: str, value: Any) -> None:
    if not isinstance(value, sp.Symbol):
        raise ParameterError(f"{name} = {value!r} is not a SymPy symbol (a {type(value).__name__})")


def _check_array(name: str, value: Any) -> None:
    """Numbers with or without a shape (arrays, nested lists and tuples), all finite; not strings, None or objects."""
    _refuse_text(name, value)
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind is not None:
        if kind not in "biufc":
            raise ParameterError(f"{name} has dtype {value.dtype}; expected numbers")
        if kind in "fc" and not bool((abs(value) < math.inf).all()):  # False at NaN and ±inf
            raise ParameterError(f"{name} has non-finite entries (nan or inf); expected finite numbers")
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_array(name, item)
        return
    if not _is_real(value):
        raise ParameterError(f"{name} = {value!r} is not an array of real numbers (a {type(value).__name__})")
    if not abs(value) < math.inf:
        raise ParameterError(f"{name} has a non-finite entry ({value}); expected finite numbers")


#: what an annotation promises -> the check of that promise
_CHECKS = {"float": _check_float, "int": _check_integer, "str": _check_text, "bool": _check_flag,
           "sp.Expr": _check_expression, "sp.Symbol": _check_symbol, "NDArray": _check_array,
           "ArrayLike": _check_array}


def _sequence_check(inner: str) -> Callable[[str, Any], None] | None:
    """The check of ``tuple[int, int]``, ``tuple[int, ...]``, ``Sequence[int]`` (elements int or float)."""
    kinds = [part.strip() for part in inner.split(",")]
    homogeneous = len(kinds) == 1 or (len(kinds) == 2 and kinds[1] == "...")
    if not set(kinds) - {"..."} <= {"int", "float"}:
        return None

    def check(name: str, value: Any) -> None:
        if not isinstance(value, (tuple, list)):
            raise ParameterError(f"{name} = {value!r} is not a tuple (a {type(value).__name__}); expected {inner}")
        if not homogeneous and len(value) != len(kinds):
            raise ParameterError(f"{name} = {value!r} has {len(value)} entries; expected {len(kinds)} ({inner})")
        for position, item in enumerate(value):
            _CHECKS[kinds[0] if homogeneous else kinds[position]](f"{name}[{position}]", item)

    return check


def _annotation_check(annotation: Any) -> tuple[Callable[[str, Any], None] | None, bool]:
    """The check for an annotation written as a string (``from __future__ import annotations``) and whether None is
    allowed; (None, True) for annotations this gate does not judge (arrays, callables, containers, objects)."""
    if not isinstance(annotation, str):
        return None, True
    parts = {part.strip() for part in annotation.split("|")}
    optional = "None" in parts
    parts.discard("None")
    if parts == {"float", "int"} or parts == {"float"}:
        return _check_float, optional
    if len(parts) != 1:
        return None, True
    kind = parts.pop()
    if kind in _CHECKS:
        return _CHECKS[kind], optional
    for prefix in ("tuple[", "Sequence["):
        if kind.startswith(prefix) and kind.endswith("]"):
            check = _sequence_check(kind[len(prefix):-1])
            return (check, optional) if check is not None else (None, True)
    return None, True


def checked_arguments(func: Callable) -> Callable:
    """Check each argument against its annotation before ``func`` runs, raising :class:`ParameterError`.

    The gate of every public function of ``theory/`` and ``solvers/``: a ``float`` parameter takes a real number
    (Python, NumPy scalar or 0-d array; not NaN, a bool, a string, a list, an array with a shape, a complex or a
    SymPy object), an ``int`` one an integer, ``str`` a string, ``bool`` a bool, ``sp.Expr`` a number or SymPy
    expression (:func:`exact`), ``sp.Symbol`` a symbol, ``NDArray``/``ArrayLike`` finite numbers of any shape;
    ``tuple[int, int]``, ``tuple[int, ...]``, ``Sequence[int]`` tuples or lists of such entries; ``| None`` also
    admits None. Ranges (and ±inf of scalars) remain each function's :func:`check_range`, shapes and
    objects the function's own checks.

    >>> @checked_arguments
    ... def rate(eta: float, steps: int = 1) -> float:
    ...     return eta * steps
    >>> rate(0.5, steps=2)
    1.0
    >>> rate([0.5])
    Traceback (most recent call last):
    ...
    gentheory.theory._validation.ParameterError: eta = [0.5] is not a real number (a list)
    """
    signature = inspect.signature(func)
    checks: dict[str, tuple[Callable[[str, Any], None], bool]] = {}
    for name, parameter in signature.parameters.items():
        check, optional = _annotation_check(parameter.annotation)
        if check is not None:
            checks[name] = (check, optional)
    positional = [name for name, parameter in signature.parameters.items()
                  if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)]
    if not checks:
        return func

    @functools.wraps(func)
    def gate(*args: Any, **kwargs: Any) -> Any:
        for name, value in (*zip(positional, args), *kwargs.items()):
            entry = checks.get(name)
            if entry is not None and not (value is None and entry[1]):
                entry[0](name, value)
        return func(*args, **kwargs)

    return gate
