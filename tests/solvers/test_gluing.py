"""Model G (solvers.gluing): gradients, the amalgam floor 2(d − r_max), the table floor against the exact extension
criterion, the retraction, and the sampler of Hom(Z_a *_{Z_c} Z_b, U(d))."""
import collections
import itertools

import numpy as np
import pytest

from gentheory.solvers import gluing as gl
from gentheory.theory import strata as ts
from gentheory.theory._validation import ParameterError

EPS = np.finfo(float).eps
TASKS = {t.name: t for t in ts.FAMILY}


def _directional(f, X, E, h=1e-6):
    return (f(X + h * E) - f(X - h * E)) / (2 * h)


@pytest.mark.parametrize("name, d", [("Q8 (<i>, <j>)", 2), ("Heis(3) (<x,z>, <y,z>)", 3), ("S3 (Z2, Z3)", 2)])
@pytest.mark.parametrize("protocol", gl.PROTOCOLS)
def test_cross_and_local_gradients_match_central_differences(name, d, protocol):
    model = gl.ModelG(TASKS[name], protocol, d)
    rng = np.random.default_rng(0)
    WA = gl.haar_unitary((3, len(model.region_a)), d, rng)
    WB = gl.haar_unitary((3, len(model.region_b)), d, rng)
    U = gl.haar_unitary((3,), d, rng)
    loss, grads = model.cross_loss_grad(WA, WB, U)
    for i, (X, g) in enumerate(zip((WA, WB, U), grads)):
        E = rng.standard_normal(X.shape) + 1j * rng.standard_normal(X.shape)

        def f(Y, i=i):
            args = [WA, WB, U]
            args[i] = Y
            return model.cross_loss_grad(*args, grad=False)[0]

        exact = np.sum((g.conj() * E).real, axis=tuple(range(1, X.ndim)))
        # central differences: error O(h²·f''') + O(u·f/h) ≈ 1e-9 relative at h = 1e-6
        np.testing.assert_allclose(_directional(f, X, E), exact, rtol=1e-7, atol=1e-7 * (1 + np.abs(exact).max()))
    _, g, _ = gl.module_loss_grad(WA, model.local_a, 4.0, 1.0)
    E = rng.standard_normal(WA.shape) + 1j * rng.standard_normal(WA.shape)
    num = _directional(lambda Y: gl.module_loss_grad(Y, model.local_a, 4.0, 1.0)[0], WA, E)
    np.testing.assert_allclose(num, np.sum((g.conj() * E).real, axis=(1, 2, 3)), rtol=1e-7, atol=1e-7)


def _exact_module(chars, combo, V):
    return np.stack([V @ np.diag(chars[a, list(combo)]) @ V.conj().T for a in range(chars.shape[0])])


@pytest.mark.parametrize("name, d", [("Q8 (<i>, <j>)", 2), ("Z18 (<3>, <2>)", 2), ("Heis(3) (<x,z>, <y,z>)", 3)])
def test_amalgam_floor_is_the_projector_gap_for_every_pair_of_faithful_modules(name, d):
    """min_U L_× over U(d), by direct minimisation from random conjugates, equals 2(d − r_max) of the overlap strata —
    the derivation in the module docstring — and not the Hoffman–Wielandt value where they differ (Z3 overlaps)."""
    from gentheory.solvers.strata import minimise_over_unitary

    model = gl.ModelG(TASKS[name], "amalgam", d)
    G = model.task.group()
    A, B = frozenset(model.region_a), frozenset(model.region_b)
    rng = np.random.default_rng(1)
    pairs = list(itertools.product(ts.faithful_modules(G, A, d), ts.faithful_modules(G, B, d)))
    differs = 0
    for ma, mb in [pairs[i] for i in rng.choice(len(pairs), size=min(8, len(pairs)), replace=False)]:
        WA = _exact_module(model.chars_a, ma, gl.haar_unitary((), d, rng))[None]
        WB = _exact_module(model.chars_b, mb, gl.haar_unitary((), d, rng))[None]
        value, _ = minimise_over_unitary(lambda U: float(model.cross_loss_grad(WA, WB, U[None], grad=False)[0][0]), d,
                                         rng=rng, restarts=6)
        na, _ = model.overlap_strata(WA, "A")
        nb, _ = model.overlap_strata(WB, "B")
        floor = model.floor(tuple(na[0]), tuple(nb[0]))
        # BFGS with finite-difference gradients stops at gtol 1e-6: the value is within ~1e-11 of the minimum
        assert abs(value - floor) <= 1e-8, (ma, mb, value, floor)
        differs += float(ts.half_frobenius_gap(tuple(na[0]), tuple(nb[0]))) != floor
    if len(model.overlap) == 3:
        assert differs > 0  # the Z3 overlaps separate the two metrics in this sample


def test_table_floor_vanishes_on_extendable_pairs_and_for_s3_q8_only_there():
    """A pair extending to a representation of G has floor 0 (theorem); for S3 and Q8 the converse holds too (their
    relations are products of two elements), for A4 it does not: (ab)³ = 1 is longer than the cross data, and every
    pair of faithful modules glues."""
    model = gl.ModelG(TASKS["A4 (Z2, Z3)"], "table", 3)
    G = model.task.group()
    A, B = frozenset(model.region_a), frozenset(model.region_b)
    extendable = ts.extendable_module_pairs(G, A, B, 3)
    pairs = [(ma, mb) for ma in ts.faithful_modules(G, A, 3) for mb in ts.faithful_modules(G, B, 3)]
    assert any(p not in extendable for p in pairs)
    assert max(gl.table_floor(model, ma, mb, restarts=3) for ma, mb in pairs[:6]) <= 1e-8
    for name in ("S3 (Z2, Z3)", "Q8 (<i>, <j>)"):
        model = gl.ModelG(TASKS[name], "table", 2)
        G = model.task.group()
        A, B = frozenset(model.region_a), frozenset(model.region_b)
        extendable = ts.extendable_module_pairs(G, A, B, 2)
        values = collections.defaultdict(list)
        for ma in ts.faithful_modules(G, A, 2):
            for mb in ts.faithful_modules(G, B, 2):
                value = gl.table_floor(model, ma, mb)
                values[(ma, mb) in extendable].append(value)
        assert max(values[True]) <= 1e-8
        assert min(values[False]) >= 0.25  # the smallest positive floor (0.5 for both groups) is far from zero


def test_riemannian_step_stays_unitary_for_any_step():
    rng = np.random.default_rng(2)
    W = gl.haar_unitary((6,), 3, rng)
    G = rng.standard_normal(W.shape) + 1j * rng.standard_normal(W.shape)
    for lr in (1e-3, 10.0):  # the second leaves the Newton–Schulz basin: the SVD factor takes over
        V = gl.riemannian_step(W, G, lr)
        assert np.abs(np.swapaxes(V.conj(), -1, -2) @ V - np.eye(3)).max() <= 64 * EPS


@pytest.mark.parametrize("a, b, c, d", [(4, 4, 2, 2), (4, 6, 2, 2)])
def test_sampled_points_satisfy_the_relations_and_reach_every_component(a, b, c, d):
    X, Y, res = gl.sample_amalgam_representations(a, b, c, d, 3000, np.random.default_rng(3))
    assert res.max() <= 1e-9
    ca, da = gl.cyclic_classes(X, a)
    cb, db = gl.cyclic_classes(Y, b)
    assert max(da.max(), db.max()) <= 1e-9
    assert len({tuple(r) for r in np.concatenate([ca, cb], axis=1)}) == ts.amalgam_components(a, b, c, d)


def test_model_g_refuses_bad_input():
    with pytest.raises(ParameterError, match="protocol"):
        gl.ModelG(TASKS["Q8 (<i>, <j>)"], "both", 2)
    with pytest.raises(ParameterError, match="c = 3"):
        gl.sample_amalgam_representations(4, 4, 3, 2, 10, np.random.default_rng(0))
    with pytest.raises(ParameterError, match="amalgam"):
        gl.ModelG(TASKS["Q8 (<i>, <j>)"], "table", 2).floor((1, 1), (0, 2))
