"""Shape checks of array arguments, shared by the solvers."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gentheory.theory._validation import ParameterError


def check_shape(name: str, value: object, shape: Sequence[int | None]) -> np.ndarray:
    """``value`` as an array if its shape matches ``shape`` (None: any length on that axis), else
    :class:`ParameterError` naming the parameter, the shape received and the shape expected.

    >>> check_shape("theta", [1.0, 2.0], (None,)).shape
    (2,)
    >>> check_shape("theta", [[1.0, 2.0]], (2,))
    Traceback (most recent call last):
    ...
    gentheory.theory._validation.ParameterError: theta has shape (1, 2); expected (2,)
    """
    array = np.asarray(value)
    expected = tuple(shape)
    if array.ndim != len(expected) or any(e is not None and e != s for e, s in zip(expected, array.shape)):
        wanted = "(" + ", ".join("any" if e is None else str(e) for e in expected) + ("," if len(expected) == 1 else "") + ")"
        raise ParameterError(f"{name} has shape {array.shape}; expected {wanted}")
    return array
