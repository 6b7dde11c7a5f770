"""The attention model of ``transitive.sequence_mistakes``: its gradient, its training, its theory side."""
from __future__ import annotations

import numpy as np
import pytest

from gentheory.theory import transitive as tt
from gentheory.theory._validation import ParameterError
from gentheory.verify import transitive_sequence as ts
from gentheory.verify.transitive import LMExceptionShift

EPS = np.finfo(float).eps


def _task(n: int, exception):
    pairs = tt.training_pairs(n, exception)
    return np.array([q for q, _ in pairs]) - 1, np.array([label for _, label in pairs], float)


def test_backpropagation_matches_central_differences() -> None:
    # float64, a small model: the central difference D(h) has truncation error ~ |D(h) - D(2h)| / 3 and rounding
    # error <= 2 eps |L| / h per entry; the analytic gradient must lie within their sum (times 4 for the ReLU and
    # the rounding of the loss itself), entry by entry
    model = ts.AttentionModel(d_model=4, d_mlp=6)
    flat = ts.init_attention(5, 2, model, rng=np.random.default_rng(0), dtype=np.float64)
    tokens, target = _task(5, (2, 4))
    grad = np.zeros_like(flat)
    ts.attention_outputs(flat, model, 5, tokens, output_grad=lambda y: y - target, grad=grad)

    def loss(f: np.ndarray) -> np.ndarray:
        return 0.5 * np.sum((ts.attention_outputs(f, model, 5, tokens) - target) ** 2, axis=1)

    h = 1e-5
    for i in range(flat.shape[1]):
        step = np.zeros_like(flat)
        step[:, i] = h
        d1 = (loss(flat + step) - loss(flat - step)) / (2 * h)
        d2 = (loss(flat + 2 * step) - loss(flat - 2 * step)) / (4 * h)
        bound = 4 * (np.abs(d1 - d2) / 3 + 2 * EPS * np.abs(loss(flat)) / h)
        np.testing.assert_array_less(np.abs(d1 - grad[:, i]), bound + 1e-300)


def test_blocks_change_no_number(monkeypatch) -> None:
    model = ts.AttentionModel(steps=30)
    init = ts.init_attention(7, 12, model, rng=np.random.default_rng(1))
    whole = ts.train_attention(7, (3, 5), init, model)
    monkeypatch.setattr(ts, "TRAIN_BLOCK", 5)
    blocked = ts.train_attention(7, (3, 5), init, model)
    np.testing.assert_array_equal(whole.margins, blocked.margins)
    np.testing.assert_array_equal(whole.train_loss, blocked.train_loss)


def test_margins_are_antisymmetric_and_follow_the_training_loss() -> None:
    # each residual r of the B training outputs obeys |r| <= sqrt(2 B loss); a training pair's margin is the mean of
    # its two outputs' signed values, so |label * margin - 1| <= sqrt(2 B loss)
    model = ts.AttentionModel(steps=1000)
    n, exception = 7, (3, 5)
    run = ts.train_attention(n, exception, ts.init_attention(n, 8, model, rng=np.random.default_rng(2)), model)
    np.testing.assert_array_equal(run.margins, -np.swapaxes(run.margins, 1, 2))
    signed = ts._training_margins(run.margins, n, exception)
    # plus the float32 rounding of the outputs: each is a dot product over d_model + d_mlp terms of size ~1, within
    # (d_model + d_mlp)·eps32 (Higham's gamma_n)
    rounding = (model.d_model + model.d_mlp) * float(np.finfo(np.float32).eps)
    allowed = np.sqrt(2 * len(_task(n, exception)[1]) * run.train_loss)[:, None] + rounding
    assert np.all(np.abs(signed - 1) <= allowed)


def test_shift_signs_are_those_of_the_language_model_claim() -> None:
    pairs, signs = ts.shift_signs(9, (4, 6))
    lm_pairs, lm_signs = LMExceptionShift()._pair_signs()
    assert pairs == lm_pairs
    np.testing.assert_array_equal(signs, lm_signs)


def test_simulation_is_reproducible() -> None:
    claim = ts.SequenceMistakes()
    cfg = ts.SequenceConfig(networks=4, model=ts.AttentionModel(steps=20))
    p = ts.ShiftTask(n=7, exception=(3, 5))
    a = claim.simulate(p, cfg, np.random.default_rng(3))
    b = claim.simulate(p, cfg, np.random.default_rng(3))
    np.testing.assert_array_equal(a.measured.value, b.measured.value)
    assert len(a.measured.value) == len(ts.shift_signs(7, (3, 5))[0])


@pytest.mark.parametrize("make, name", [
    (lambda: ts.AttentionModel(d_model=0), "d_model"),
    (lambda: ts.AttentionModel(steps=2.5), "steps"),
    (lambda: ts.AttentionModel(learning_rate=0.0), "learning_rate"),
    (lambda: ts.SequenceConfig(networks=1), "networks"),
    (lambda: ts.ShiftTask(n=9, exception=(4, 5)), "exception"),
])
def test_bad_parameters_are_refused(make, name) -> None:
    with pytest.raises(ParameterError, match=name):
        make()


def test_gradient_needs_a_buffer() -> None:
    model = ts.AttentionModel()
    flat = ts.init_attention(5, 2, model, rng=np.random.default_rng(4))
    tokens, target = _task(5, None)
    with pytest.raises(ParameterError, match="grad"):
        ts.attention_outputs(flat, model, 5, tokens, output_grad=lambda y: y - target)
