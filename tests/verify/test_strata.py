"""Strata simulations: retraction, training entry points, Model L helpers and parameter errors."""
import numpy as np
import pytest

from gentheory.theory._validation import ParameterError
from gentheory.solvers import gluing as gl
from gentheory.solvers import strata as ss
from gentheory.verify import strata as vs
from gentheory.verify import strata_gluing as sg

EPS = np.finfo(float).eps


def test_polar_returns_unitary_and_refuses_far_points():
    rng = np.random.default_rng(0)
    X = gl.haar_unitary((5,), 3, rng)
    Y = ss.polar(X + 1e-3 * rng.standard_normal(X.shape))
    assert np.abs(np.swapaxes(Y.conj(), -1, -2) @ Y - np.eye(3)).max() <= 64 * EPS
    with pytest.raises(ParameterError, match="Newton–Schulz"):
        ss.polar(3 * X)


def test_riemannian_step_stays_on_the_unitary_group_and_descends():
    model, _, _ = ss.q8_model_t(2)
    rng = np.random.default_rng(1)
    WA, WB = ss.polar(gl.haar_unitary((4, 4), 2, rng)), ss.polar(gl.haar_unitary((4, 4), 2, rng))
    l0 = model.total_loss(WA, WB, 0.0)
    WA2, WB2, _ = vs.train_model_t(model, WA, WB, steps=50, lr=0.02, parametrisation="unitary")
    assert np.abs(np.swapaxes(WA2.conj(), -1, -2) @ WA2 - np.eye(2)).max() <= 64 * EPS
    assert np.all(model.total_loss(WA2, WB2, 0.0) < l0)


@pytest.mark.parametrize("kwargs, match", [
    ({"lr": 0.0}, "lr"), ({"lr": 0.02, "w_cross": -1.0}, "w_cross"),
    ({"lr": 0.02, "parametrisation": "polar"}, "parametrisation"),
])
def test_train_model_t_rejects_bad_arguments(kwargs, match):
    model, _, _ = ss.q8_model_t(2)
    W = np.zeros((1, 4, 2, 2), complex)
    with pytest.raises(ParameterError, match=match):
        vs.train_model_t(model, W, W, steps=1, **kwargs)


def test_params_validate():
    with pytest.raises(ParameterError, match="d = 4"):
        vs.TwistParams(d=4)
    with pytest.raises(ParameterError, match="task"):
        sg.GlueParams(task="Q16")
    with pytest.raises(ParameterError, match="protocol"):
        sg.GlueParams(task="Q8 (<i>, <j>)", protocol="both")
    with pytest.raises(ParameterError, match="cross_lr"):
        sg.GlueConfig(cross_lr=2.0)
    with pytest.raises(ParameterError, match="eps_small"):
        vs.CertificateConfig(eps_small=0.1, eps_large=0.01)


def test_modules_learn_exact_homomorphisms_of_z4():
    table = np.add.outer(np.arange(4), np.arange(4)) % 4
    W, acc, defect = vs.train_modules(table, 2, 16, vs.ModuleConfig(modules=16), np.random.default_rng(2))
    assert acc.shape == defect.shape == (16,)
    good = (acc == 1) & (defect < 1e-6)
    # spec §2.5: 87 % of modules become exact homomorphisms; P(≤ 7 of 16 | p = 0.87) = 5e-5 (false alarm)
    assert good.mean() >= 0.5
    exact, delta = ss.nearest_homomorphism(W[np.argmax(good)], 1, np.arange(4), 4)
    assert delta < 1e-6
    assert np.abs(exact[1] @ exact[1] - exact[2]).max() <= 64 * EPS


def test_gluing_minimum_is_a_class_function():
    """min_U J is unchanged when either module is conjugated (what lets the claim compare trained pairs
    with canonical representatives)."""
    _, A, B, pa, pb = ss.q8_gluing_setup()
    value = ss.canonical_min_gluing((0, 1, 0, 1), (1, 1, 0, 0))[0]
    rng = np.random.default_rng(3)
    ga = np.diag(np.exp(2j * np.pi * np.array([1, 3]) / 4))
    gb = np.diag(np.exp(2j * np.pi * np.array([0, 1]) / 4))
    V, U = gl.haar_unitary((), 2, rng), gl.haar_unitary((), 2, rng)
    rho_a = np.array([V @ np.linalg.matrix_power(ga, int(e)) @ V.conj().T for e in pa])
    rho_b = np.array([U @ np.linalg.matrix_power(gb, int(e)) @ U.conj().T for e in pb])
    best, _, _ = ss.min_gluing(rho_a, rho_b, 8, rng)
    assert abs(best - value) <= 2e-6 and abs(value - 3.5) <= 2e-6


def test_train_until_settled_trains_on_only_the_unsettled_runs():
    from gentheory.verify.strata import _gaussian_init, train_model_t, train_until_settled

    model, _, _ = ss.q8_model_t(2)
    WA, WB = _gaussian_init(model, 4, 0.5, np.random.default_rng(0))

    def settled(wa, wb):  # runs 0 and 1 settle at once, runs 2 and 3 never
        return np.array([True, True, False, False]) if len(wa) == 4 else np.zeros(len(wa), bool)

    wa, wb, hist, trained = train_until_settled(model, WA, WB, settled, steps=10, rounds=3, lr=0.02, record_every=5)
    assert trained.tolist() == [10, 10, 30, 30]
    assert hist["step"].tolist() == [0, 5, 10]  # the history is the first round's
    first_a, first_b, _ = train_model_t(model, WA, WB, steps=10, lr=0.02)
    np.testing.assert_array_equal(wa[:2], first_a[:2])
    # GD is memoryless: two more rounds of 10 steps are 20 more steps
    more_a, more_b, _ = train_model_t(model, first_a[2:], first_b[2:], steps=20, lr=0.02)
    np.testing.assert_array_equal(wa[2:], more_a)
    np.testing.assert_array_equal(wb[2:], more_b)


def test_shared_overlap_ties_the_overlap_embeddings():
    """With a shared overlap the two modules' copies of ±1 start equal and stay equal (one parameter, summed gradient)."""
    model, _, _ = ss.q8_model_t(2)
    WA, WB = vs._gaussian_init(model, 3, 0.5, np.random.default_rng(4))
    wa, wb, _ = vs.train_model_t(model, WA, WB, steps=20, lr=0.02, shared_overlap=True)
    overlap = sorted(set(model.region_a) & set(model.region_b))
    ia = [model.region_a.index(c) for c in overlap]
    ib = [model.region_b.index(c) for c in overlap]
    np.testing.assert_array_equal(wa[:, ia], wb[:, ib])
    assert not np.array_equal(wa[:, ia], WA[:, ia])


def test_nearest_exact_modules_recover_a_perturbed_homomorphism():
    model = sg._model("Heis(3) (<x,z>, <y,z>)", "amalgam", 0)
    rng = np.random.default_rng(5)
    V = gl.haar_unitary((2,), 3, rng)
    combo = np.array([[1, 4, 8], [0, 2, 2]])  # two character multisets of Z3 × Z3
    exact = np.stack([np.stack([V[r] @ np.diag(model.chars_a[a, combo[r]]) @ V[r].conj().T
                                for a in range(9)]) for r in range(2)])
    noise = 1e-7 * (rng.standard_normal(exact.shape) + 1j * rng.standard_normal(exact.shape))
    E, delta = sg.nearest_exact_modules(exact + noise, model.chars_a)
    assert np.all(delta <= 1e-6)
    assert np.abs(E - exact).max() <= 1e-6
    counts, dist = gl.character_multiplicities(E, model.chars_a)
    assert dist.max() <= 1e-12
    assert [sorted(np.repeat(np.arange(9), c)) for c in counts] == [sorted(c) for c in combo.tolist()]


def test_glued_run_records_and_certifies_strata():
    model = sg._model("Q8 (<i>, <j>)", "amalgam", 0)
    run = sg.train_glued(model, sg.GlueConfig(runs=16, cross_steps=40, record_every=20), 0.5, np.random.default_rng(6))
    assert run.step.tolist() == [0, 20, 40]
    assert run.L_cross.shape == (3, 16) and run.strata_a.shape == (3, 16, 2)
    ok = run.exact
    assert ok.any()
    # exact modules of ⟨i⟩ are faithful: ρ(−1) has an eigenvalue −1, so stratum (2, 0) never occurs (spec §2.2)
    assert np.all(run.strata_a[0, ok, 1] >= 1) and np.all(run.strata_b[0, ok, 1] >= 1)
    assert set(np.unique(run.arrival_gap()[ok])) <= {0.0, 2.0}
