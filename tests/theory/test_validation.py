"""The one validation path for numbers: non-numbers are refused with the parameter's name, strings never run."""
import math
import re

import numpy as np
import pytest
import sympy as sp

from gentheory.solvers import double_descent as sdd
from gentheory.solvers import grokking as sg
from gentheory.theory import _groups
from gentheory.theory import transitive as tt
from gentheory.theory._validation import ParameterError, check_range


@pytest.mark.parametrize("value, message", [
    ("0.5", "eta = '0.5' is a string, not a number"),
    (b"1", "eta = b'1' is a string, not a number"),
    ([0.5], "eta = [0.5] is not a number (a list of shape (1,))"),
    (np.array([0.5]), "is not a number (a ndarray of shape (1,))"),
    ({"x": 1}, "is not a number (a dict)"),
    (1 + 2j, "is not a number (a complex)"),
    (None, "eta = None is not a number"),
    (True, "eta = True is not a number"),
    (math.nan, "eta = nan is outside (0, inf)"),
    (np.array(math.nan), "eta = nan is outside (0, inf)"),
    (-1, "eta = -1 is outside (0, inf)"),
])
def test_non_numbers_and_out_of_range_values_name_the_parameter(value, message):
    with pytest.raises(ParameterError) as exc:
        check_range("eta", value, low=0, low_open=True)
    assert message in str(exc.value), str(exc.value)


@pytest.mark.parametrize("value", [0.5, 1, np.float32(0.5), np.array(0.5), np.int64(3), sp.Rational(1, 2),
                                   sp.Symbol("eta", positive=True)])
def test_numbers_zero_d_arrays_and_sympy_pass(value):
    assert check_range("eta", value, low=0, low_open=True) is value


def test_a_string_parameter_is_never_evaluated(tmp_path, monkeypatch):
    """A string reaching SymPy's parser runs as Python (it once created a file): it is refused before that."""
    monkeypatch.chdir(tmp_path)
    payload = "__import__('pathlib').Path('pwned').write_text('x') or 0.1"
    with pytest.raises(ParameterError, match="strings are never evaluated"):
        sg.grokking_time(eta=payload, lam=1e-3, beta=0.9, ratio=1e-3)
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("rtol", [math.nan, math.inf, 0.0, -1e-3])
def test_a_tolerance_that_would_switch_the_check_off_is_refused(rtol):
    """rtol = nan made every comparison False, so a quadrature returned an unchecked number (0.5934 for 0.5771)."""
    from gentheory.solvers._fixed_point import damped_fixed_point

    with pytest.raises(ParameterError, match="rtol = "):
        sdd.response([1.0], 0.5, rtol=rtol)
    with pytest.raises(ParameterError, match="tol = "):
        damped_fixed_point(np.cos, 1.0, what="cos x = x", tol=rtol)


@pytest.mark.parametrize("call, message", [
    (lambda: sdd.finite_n_test_error(10, 20, noise=-1), "noise = -1"),
    (lambda: sdd.resolvent([0.5, -1.0], 0.5), "z has entries"),
    (lambda: sdd.resolvent(0.5, 0.0), "alpha = 0.0"),
    (lambda: sg.mode_multiplier([1.5], 0.1, 0.5), "k must hold integers"),
    (lambda: sg.mode_multiplier([-1], 0.1, 0.5), "k must hold integers"),
    (lambda: sg.mode_multiplier([3], math.nan, 0.5), "a has a non-finite entry"),
    (lambda: sg.mode_multiplier([3], 0.1, 1.0), "beta has entries outside"),
    (lambda: _groups.cyclic_group(10**12), "n = 1000000000000 is outside [1, 4096]"),
    (lambda: tt.training_pairs(10**12, None), "n = 1000000000000 is outside"),
])
def test_functions_that_validated_nothing_or_hung_refuse_bad_input(call, message):
    """Each of these returned a wrong number (−1.11 for a negative noise), validated nothing, or hung."""
    with pytest.raises(ParameterError, match=re.escape(message)):
        call()
