"""Hostile inputs to every public function of ``theory/`` and ``solvers/``.

Each public function has one valid call below (most recorded from the unit tests), and a test checks that the table
covers every public function, so a new function needs a valid call here. Every argument of that call is then
replaced, in turn, by hostile values — NaN, ±inf, strings, lists, arrays with a shape or an extra axis, None,
complex numbers, negative and huge sizes, SymPy's nan and oo — and the function must raise a
:class:`~gentheory.theory._validation.ParameterError` (or :class:`~gentheory.solvers.SolverConvergenceError`) or return a result with no
NaN in it, within :data:`SECONDS`. A string that creates a file if Python evaluates it (SymPy's ``sympify`` does, and
so does arithmetic between a string and a SymPy object) must never create it. A hypothesis test draws arbitrary
floats and integers (subnormal, huge, negative, NaN, ±inf) for a numeric argument of a random function.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import signal
from collections.abc import Callable, Iterator
from numbers import Number
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import gentheory.solvers.augmentation as sa
import gentheory.solvers.grokking as gs
import gentheory.solvers.strata as ss
import gentheory.theory.strata as ts
import gentheory.theory.transitive as tt
from gentheory.solvers import SolverConvergenceError
from gentheory.theory._validation import ParameterError

STUDIES = ("augmentation", "double_descent", "grokking", "perceptron", "strata", "transitive")
MODULES = ([f"gentheory.{layer}.{study}" for layer in ("theory", "solvers") for study in STUDIES]
           + ["gentheory.solvers.gluing", "gentheory.solvers.mixup"])
#: wall-clock limit of one call: a hostile size must be refused, not computed
SECONDS = 20


def _linear_problem() -> gs.LinearProblem:
    rng = np.random.default_rng(0)
    design = rng.standard_normal((3, 5))
    teacher = rng.standard_normal(5)
    return gs.LinearProblem(design, design @ teacher, np.eye(5), teacher)


def _mixup():
    from gentheory.solvers.mixup import Mixup

    return Mixup(1.0)


def _q8_rho() -> np.ndarray:
    return np.asarray(ts.q8_target(2), complex)


def _z4_table():
    from gentheory.solvers.gluing import ModuleTable

    return ModuleTable(np.add.outer(np.arange(4), np.arange(4)) % 4)


def _model_g():
    from gentheory.solvers.gluing import ModelG

    return ModelG(next(t for t in ts.FAMILY if t.name.startswith("S3")), "table", 2)


#: one valid call per public function: module.function -> a factory of its keyword arguments
VALID: dict[str, Callable[[], dict]] = {
    'solvers.augmentation.asymptotic_equivalent': lambda: {'n_over_d': 0.75, 'p_over_d': 1.0, 'lam': 0.001, 'k': 1, 'activation': 'linear', 'noise_var': 0.1, 'label_noise': 0.25},
    'solvers.augmentation.gaussian_kernel': lambda: {'activation': 'linear', 'va': np.float64(1.983492724500072), 'vb': np.float64(0.9554027985388369), 'c': -1.263794007991996},
    'solvers.augmentation.hermite_coefficients': lambda: {'activation': 'linear', 'noise_var': 0.5, 'shift': 0.8},
    'solvers.augmentation.mean_slope': lambda: {'activation': 'linear', 'v': np.float64(1.983492724500072)},
    'solvers.augmentation.mean_value': lambda: {'activation': 'linear', 'v': 1.0},
    'solvers.augmentation.test_error': lambda: {'n': 300, 'd': 400, 'p': 400, 'lam': 0.001, 'k': float('inf'), 'activation': 'linear', 'noise_std': 0.31622776601683794, 'label_noise': 0.25},
    'solvers.double_descent.dmft_correlations': lambda: {'alpha': 0.5, 'lam': 0.0, 'signal': 1.0, 'noise': 0.5, 'temperature': 0.0, 'init': 0.3, 't_max': 4.0, 'H': 0.1},
    'solvers.double_descent.dmft_response': lambda: {'alpha': 0.5, 'lam': 0.0, 't_max': 8.0, 'h': 0.01},
    'solvers.double_descent.fd_ratio': lambda: {'t': 51.0, 't_prime': 50.0, 'alpha': 2.0},
    'solvers.double_descent.finite_n_test_error': lambda: {'n_features': 40, 'n_samples': 50, 'noise': 1.0},
    'solvers.double_descent.resolvent': lambda: {'z': 0.1, 'alpha': 0.5},
    'solvers.double_descent.response': lambda: {'tau': (10000.0,), 'alpha': 1.0},
    'solvers.double_descent.response_finite_n_correction': lambda: {'tau': (0.5, 400.0), 'alpha': 0.8},
    'solvers.double_descent.hard_edge_response': lambda: {'u': (0.03, 1.0, 8.0), 'entries': 'real'},
    'solvers.double_descent.test_error': lambda: {'alpha': 0.5, 'lam': 0.0, 't': 10000000.0, 'signal': 1.3, 'noise': 0.7},
    'solvers.double_descent.train_error': lambda: {'alpha': 2.0, 'noise': 1.0},
    'solvers.grokking.first_order_rate': lambda: {'eta': 0.2, 'lam': 0.001, 'beta': 0.9},
    'solvers.grokking.continuous_time_rate': lambda: {'eta': 0.05, 'lam': 0.02, 'beta': 0.9},
    'solvers.grokking.grokking_time': lambda: {'eta': 0.2, 'lam': 0.001, 'beta': 0.9, 'ratio': 0.1},
    'solvers.grokking.headline_grokking_time': lambda: {'eta': 0.1, 'lam': 0.0003, 'beta': 0.0, 'ratio': 0.01},
    'solvers.grokking.mode_multiplier': lambda: {'k': 3, 'a': 0.0033333333333333335, 'beta': 0.8},
    'solvers.grokking.mode_multiplier_error_bound': lambda: {'k': 3, 'a': 0.0033333333333333335, 'beta': 0.8},
    'solvers.grokking.null_multiplier': lambda: {'k': (0, 1, 2), 'eta': 0.5, 'lam': 0.1, 'beta': 0.0},
    'solvers.grokking.null_rate': lambda: {'eta': 0.2, 'lam': 0.001, 'beta': 0.9},
    'solvers.grokking.slow_root_amplitude': lambda: {'eta': 0.2, 'lam': 0.001, 'beta': 0.0},
    'solvers.grokking.spectral_radius': lambda: {'a': 1e-06, 'beta': 0.0},
    'solvers.perceptron.franz_parisi': lambda: {'alpha': 0.5, 'distance': 0.33880731838822215, 'kappa_ref': 0.0},
    'solvers.perceptron.freezing_criterion': lambda: {'loss': 'step', 'beta': 2.0, 'variance': 0.0001, 'omega_var': 0.55},
    'solvers.perceptron.frozen_ground_state': lambda: {'alpha': 0.85},
    'solvers.perceptron.local_entropy_curve': lambda: {'alpha': 0.74, 'beta': float('inf'), 'distances': (0.01, 0.02)},
    'solvers.perceptron.flip_cost_slope': lambda: {'alpha': 0.5, 'beta': 2.0},
    'solvers.perceptron.rs_hinge': lambda: {'alpha': 0.5, 'beta': 2.0},
    'solvers.perceptron.teacher_neighbourhood': lambda: {'alpha': 1.3, 'beta': 2.0, 'overlap': 0.9},
    'solvers.perceptron.hinge_flip_cost': lambda: {'alpha': 0.5, 'beta': 2.0},
    'solvers.perceptron.annealed_hinge_error': lambda: {'beta': 2.0},
    'solvers.perceptron.max_margin': lambda: {'alpha': 0.3},
    'solvers.perceptron.microcanonical_storage': lambda: {'alpha': 0.5, 'train_error': 0.05},
    'solvers.perceptron.ogp_gap': lambda: {'alpha': 0.74},
    'solvers.perceptron.rs_storage': lambda: {'alpha': 0.5},
    'solvers.perceptron.storage_capacity': lambda: {},
    'solvers.perceptron.teacher_max_margin': lambda: {'alpha': 1.0},
    'solvers.perceptron.teacher_student_finite': lambda: {'alpha': 1.2, 'beta': 2.0},
    'solvers.perceptron.teacher_student_rs': lambda: {'alpha': 1.1},
    'solvers.perceptron.teacher_student_transitions': lambda: {},
    'solvers.transitive.cross_section_threshold': lambda: {'n': 9, 'exception': (4, 6)},
    'solvers.transitive.family_coefficients': lambda: {'kappa': (1.0, 0.5, 0.16666666666666666)},
    'solvers.transitive.leaky_relu_kernel': lambda: {'rho': 0.0, 'slope': 0.0, 'kind': 'nngp'},
    'solvers.transitive.margins': lambda: {'n': 9, 'exception': (4, 6), 'kappa': (1.0, 0.47116555718878134, 0.15915494309189535)},
    'solvers.transitive.margins_general': lambda: {'n': 9, 'exception': (4, 6), 'slope': 0.0},
    'solvers.transitive.network_family': lambda: {'slope': 0.0, 'kind': 'ntk'},
    'solvers.transitive.pair_inputs': lambda: {'n': 9, 'pairs': ((1, 2), (2, 1), (2, 3), (3, 2), (3, 4), (4, 3), (4, 5), (5, 4), (5, 6), (6, 5), (6, 7), (7, 6), (7, 8), (8, 7), (8, 9), (9, 8), (4, 6), (6, 4)), 'item_gram': None},
    'solvers.transitive.rank_solution': lambda: {'n': 9, 'exception': (4, 6), 'mu': 0.49999999999999994},
    'theory.augmentation.gaussian_kernel': lambda: {'activation': 'relu', 'va': sp.Integer(1), 'vb': sp.Integer(1), 'c': sp.Rational(3, 10)},
    'theory.augmentation.helmert': lambda: {'k': 1},
    'theory.augmentation.hermite_coefficients': lambda: {'activation': 'linear', 'noise_var': sp.Rational(1, 2), 'shift': sp.Rational(4, 5)},
    'theory.augmentation.isotropic_cubic': lambda: {'gamma': sp.Rational(4, 3), 'lam': sp.Rational(1, 100), 's2': sp.Rational(1, 10), 'k': 4},
    'theory.augmentation.isotropic_q': lambda: {'gamma': sp.Rational(1, 2), 'lam': sp.Rational(1, 10), 's2': sp.Rational(1, 2), 'k': 2},
    'theory.augmentation.isotropic_test_error': lambda: {'gamma': sp.Rational(4, 3), 'lam': sp.Rational(1, 1000), 's2': sp.Rational(1, 10), 'k': sp.oo, 'label_noise': sp.Rational(1, 4)},
    'theory.augmentation.mean_slope': lambda: {'activation': 'relu', 'v': sp.Rational(17, 10)},
    'theory.augmentation.mean_value': lambda: {'activation': 'relu', 'v': sp.Rational(17, 10)},
    'theory.augmentation.ridge_quadratic': lambda: {'gamma': sp.Rational(4, 3), 'lam': sp.Rational(11, 100)},
    'theory.double_descent.critical_response_amplitude': lambda: {},
    'theory.double_descent.fd_ratio': lambda: {'R_lag': 1, 'R_sum': 0},
    'theory.double_descent.finite_n_ridgeless_test_error': lambda: {'n': 40, 'p': 50, 'signal': 1, 'noise': 1},
    'theory.double_descent.mp_edges': lambda: {'a': sp.Integer(2)},
    'theory.double_descent.order_parameter': lambda: {'a': sp.Rational(1, 4)},
    'theory.double_descent.resolvent': lambda: {},
    'theory.double_descent.response_finite_n_correction': lambda: {'t': sp.Rational(1, 2), 'a': sp.Rational(1, 2)},
    'theory.double_descent.hard_edge_density': lambda: {'x': sp.Rational(1, 2)},
    'theory.double_descent.hard_edge_response': lambda: {'u': sp.Rational(1, 2), 'digits': 15},
    'theory.double_descent.ridge_test_error': lambda: {'a': sp.Rational(1, 2), 'lam': sp.Rational(1, 20), 'signal': 1, 'noise': sp.Rational(1, 4)},
    'theory.double_descent.ridgeless_test_error': lambda: {'a': sp.Rational(1, 3), 'signal': 2, 'noise': 3},
    'theory.double_descent.variance_exponent_series': lambda: {'side': 'above'},
    'theory.grokking.characteristic_polynomial': lambda: {},
    'theory.grokking.characteristic_roots': lambda: {'a': sp.Rational(1, 50), 'beta': sp.Rational(9, 10)},
    'theory.grokking.continuous_time_rate': lambda: {'eta_lam': sp.Rational(3, 16), 'beta': 0},
    'theory.grokking.decoupled_null_multiplier': lambda: {'k_value': 3, 'eta_lam': sp.Rational(1, 2)},
    'theory.grokking.grokking_time_expansion': lambda: {'order': 0},
    'theory.grokking.mode_multiplier': lambda: {'a': sp.Rational(1, 50), 'beta': sp.Rational(9, 10)},
    'theory.grokking.mode_multiplier_underdamped': lambda: {'k_value': 0, 'a': sp.Rational(1, 2), 'beta': sp.Rational(1, 4)},
    'theory.grokking.regime': lambda: {'a_value': sp.Rational(1, 2), 'beta_value': sp.Rational(1, 4)},
    'theory.grokking.regime_boundaries': lambda: {'beta': sp.Rational(1, 4)},
    'theory.grokking.slow_rate': lambda: {'eta_lam': sp.Rational(1, 2), 'beta': 0},
    'theory.grokking.slow_rate_series': lambda: {'order': 3},
    'theory.grokking.slow_root_amplitude': lambda: {'eta_lam': sp.Rational(1, 2), 'beta': 0},
    'theory.perceptron.annealed_flip_cost_slope': lambda: {'alpha': 1, 'beta': 2},
    'theory.perceptron.annealed_storage_capacity': lambda: {},
    'theory.perceptron.annealed_storage_entropy': lambda: {'alpha': 1},
    'theory.perceptron.annealed_teacher_student': lambda: {'digits': 25},
    'theory.perceptron.boundary_jump': lambda: {'beta': sp.Rational(1, 2)},
    'theory.perceptron.gaussian_tail': lambda: {'x': 0},
    'theory.perceptron.rs_storage_action': lambda: {'alpha': 0.5, 'beta': sp.oo, 'kappa': 0.0},
    'theory.perceptron.rs_storage_stationarity': lambda: {'q': 0.3223853632235557, 'qhat': 0.6680349895351184, 'alpha': 0.5, 'beta': sp.oo, 'kappa': 0.0, 'digits': 15},
    'theory.strata.amalgam_abelianisation_order': lambda: {'a': 4, 'b': 4, 'c': 2},
    'theory.strata.amalgam_components': lambda: {'a': 4, 'b': 4, 'c': 2, 'd': 1},
    'theory.strata.cyclic_strata': lambda: {'m': 2, 'd': 1},
    'theory.strata.gap': lambda: {'n': (2, 0), 'n_prime': (0, 2)},
    'theory.strata.half_frobenius_gap': lambda: {'n': (2, 0), 'n_prime': (0, 2)},
    'theory.strata.model_t_cross_loss_table': lambda: {'d': 2},
    'theory.strata.model_t_twists': lambda: {'d': 2},
    'theory.strata.q8_irrep': lambda: {},
    'theory.strata.q8_obstruction': lambda: {'d': 2},
    'theory.strata.q8_target': lambda: {'d': 2},
    'theory.strata.r_max': lambda: {'n': (2, 0), 'n_prime': (0, 2)},
    'theory.strata.restrict_to_subgroup': lambda: {'n': (1, 0, 0, 0), 'a': 4, 'c': 2},
    'theory.strata.stratum_dimension': lambda: {'n': (1, 0)},
    'theory.transitive.check_task': lambda: {'n': 9, 'exception': (4, 6)},
    'theory.transitive.cross_section_threshold': lambda: {'n': 9, 'exception': (4, 6)},
    'theory.transitive.tail_criterion': lambda: {'n': 9, 'exception': (4, 6)},
    'theory.transitive.loop_threshold': lambda: {'n': 9, 'exception': (4, 6)},
    'theory.transitive.dipole_ranks': lambda: {'n': 9, 'exception': (4, 6), 'mu_value': sp.Rational(1, 2)},
    'theory.transitive.graph_laplacian': lambda: {'n': 5, 'exception': (2, 4)},
    'theory.transitive.green_function': lambda: {'n': 9, 'mu_value': sp.Rational(1, 2)},
    'theory.transitive.no_exception_ranks': lambda: {'n': 5, 'mu_value': sp.Rational(1, 3)},
    'theory.transitive.pair_category': lambda: {'i': 1, 'j': 2, 'n': 11, 'exception': (5, 8)},
    'theory.transitive.pairs_by_category': lambda: {'n': 11, 'exception': (5, 8)},
    'theory.transitive.rank_margin': lambda: {'n': 9, 'exception': (4, 6), 'pair': (4, 6)},
    'theory.transitive.rank_solution': lambda: {'n': 5, 'exception': (2, 4), 'mu_value': sp.Rational(1, 2)},
    'theory.transitive.source_vector': lambda: {'n': 5, 'exception': (2, 4)},
    'theory.transitive.task_graph': lambda: {'n': 5, 'exception': (2, 4)},
    'theory.transitive.threshold_polynomial': lambda: {'n': 9, 'exception': (4, 6), 'pair': (1, 7)},
    'theory.transitive.thresholds': lambda: {'n': 9, 'exception': (4, 6), 'pair': (1, 7)},
    'theory.transitive.training_pairs': lambda: {'n': 5, 'exception': (2, 4)},
    # calls the unit tests make only with symbols, functions or structured arguments
    'theory.double_descent.mp_density': lambda: {'x': sp.Rational(1, 2), 'a': sp.Rational(1, 2)},
    'theory.double_descent.resolvent_quadratic': lambda: {'R': sp.Rational(1, 3), 'zz': sp.Integer(-1),
                                                          'a': sp.Rational(1, 2)},
    'theory.double_descent.ridge_peak': lambda: {'lam': sp.Rational(1, 10), 'noise': sp.Integer(1)},
    'theory.double_descent.ridge_variance_at_threshold': lambda: {'lam': sp.Rational(1, 10), 'noise': sp.Integer(1)},
    'theory.double_descent.relaxation_time': lambda: {'a': sp.Rational(1, 2)},
    'theory.double_descent.soft_edge_scale': lambda: {'a': sp.Rational(1, 2)},
    'theory.double_descent.response_scaling_function': lambda: {'x': sp.Rational(1, 2), 'branch': 'above'},
    'theory.double_descent.variance_scaling_function': lambda: {'x': sp.Rational(1, 2)},
    'theory.double_descent.variance_scaling_corrections': lambda: {'a': sp.Rational(1, 2)},
    'theory.grokking.grokking_time': lambda: {'eta_lam': sp.Rational(1, 1000), 'beta': sp.Rational(9, 10),
                                              'log_ratio': sp.Integer(5)},
    'theory.grokking.coupled_decoupled_ratio': lambda: {'eta_lam': sp.Rational(1, 1000), 'beta': sp.Rational(9, 10)},
    'theory.perceptron.binary_entropy': lambda: {'p': sp.Rational(1, 3)},
    'theory.perceptron.annealed_teacher_student_potential': lambda: {'r': sp.Rational(1, 2), 'alpha': sp.Integer(1)},
    'theory.perceptron.pattern_weight': lambda: {'delta': sp.Rational(1, 2), 'beta': sp.Integer(2)},
    'theory.perceptron.legendre_entropy': lambda: {'phi': sp.Symbol('beta') ** 2, 'beta': sp.Symbol('beta')},
    'theory.perceptron.annealed_microcanonical_entropy': lambda: {'alpha': sp.Rational(1, 2), 'eps': sp.Rational(1, 10)},
    'theory.perceptron.gaussian_average_mp': lambda: {'fun': lambda z: z * z, 'digits': 15},
    'theory.strata.hom_components_by_stratum': lambda: {'G': ts.quaternion_group(), 'd': 2,
                                                         'c': ts.quaternion_group().index("-1"), 'm': 2},
    'theory.strata.faithful_module_strata': lambda: {
        'G': ts.quaternion_group(), 'region': ts.quaternion_group().closure([ts.quaternion_group().index("i")]),
        'overlap': ts.quaternion_group().closure([ts.quaternion_group().index("-1")]), 'd': 2,
        'c': ts.quaternion_group().index("-1")},
    'theory.strata.analyse_task': lambda: {'task': ts.FAMILY[0]},
    'theory.strata.cross_pairs': lambda: {'G': ts.quaternion_group(), 'A': frozenset({0, 1}), 'B': frozenset({0, 2})},
    'theory.transitive.loop_items': lambda: {'exception': (4, 6)},
    'theory.transitive.family_kernel': lambda: {'kappa': tt.KernelFamily(1, sp.Rational(1, 2), sp.Rational(1, 6))},
    'theory.transitive.krr_predictions': lambda: {'n': 5, 'exception': (2, 4),
                                                  'kappa': tt.KernelFamily(1, sp.Rational(1, 2), sp.Rational(1, 6))},
    'theory.transitive.margins': lambda: {'n': 5, 'exception': (2, 4),
                                          'kappa': tt.KernelFamily(1, sp.Rational(1, 2), sp.Rational(1, 6))},
    'solvers.mixup.weighted_ridge_equivalent': lambda: {'sigma_diag': np.linspace(0.5, 1.5, 4),
                                                        'weights': np.array([0.2, 0.7, 1.4]), 'n_over_d': 0.75,
                                                        'lam': 0.01, 'signal': 1.0, 'label_noise': 0.25},
    'solvers.mixup.mixup_equivalent': lambda: {'sigma_diag': np.ones(1), 'mixup': _mixup(), 'n_over_d': 1.5, 'k': 2,
                                               'lam': 0.01, 'weights': np.array([0.3, 0.6, 0.9]), 'label_noise': 0.25},
    'solvers.augmentation.grouped_modes_equivalent': lambda: {
        'mass': np.ones(2), 'omega': np.ones(2), 'cross': np.ones(2), 'tm2': np.ones(2), 'y2': 1.5,
        'groups': [sa.SampleGroup(0.5, np.full(2, 0.4), 0.4, 0.6), sa.SampleGroup(0.5, np.full(2, 1.6), 1.6, 1.8)],
        'n': 2.0, 'lam': 0.1, 'penalty': 0.2},
    'solvers.augmentation.shift_equivalent': lambda: {'sigma': np.ones(8), 'beta_power': np.ones(8) / 8,
                                                      'shifts': (-1, 0, 1), 'n': 8.0, 'k': 2, 'lam': 0.1,
                                                      'label_noise': 0.1},
    'solvers.augmentation.linear_moments': lambda: {'sigma': np.diag(np.linspace(0.5, 1.5, 4)), 'beta': np.ones(4) / 2,
                                                    'family': sa.AdditiveNoise(0.3), 'label_noise': 0.1},
    'solvers.augmentation.global_scaling_moments': lambda: {'sigma': np.diag(np.linspace(0.5, 1.5, 4)),
                                                            'beta': np.ones(4) / 2, 'family': sa.GlobalScaling(1.0, 0.5),
                                                            'label_noise': 0.1},
    'solvers.augmentation.rf_moments': lambda: {'feature_weights': np.random.default_rng(2).standard_normal((6, 4)) / 2,
                                                'beta': np.ones(4) / 2, 'family': sa.AdditiveNoise(0.3),
                                                'activation': 'relu', 'label_noise': 0.1},
    'solvers.augmentation.rf_test_moments': lambda: {'feature_weights': np.random.default_rng(2).standard_normal((6, 4)) / 2,
                                                     'beta': np.ones(4) / 2, 'activation': 'relu'},
    'solvers.augmentation.monte_carlo_moments': lambda: {
        'features': lambda x: x, 'augment': lambda x, rng: x + 0.5 * rng.standard_normal(x.shape),
        'sample_x': lambda m, rng: rng.standard_normal((m, 3)), 'target': lambda x: x.sum(axis=1),
        'n_samples': 256, 'rng': np.random.default_rng(3), 'label_noise': 0.1, 'batch': 128},
    'solvers.augmentation.modes_equivalent': lambda: {
        'mass': np.ones(1), 'omega': np.ones(1), 'omega_m': 1.3 * np.ones(1), 'cbar': np.zeros(1), 'cross': np.ones(1),
        'tm2': np.ones(1), 'y2': 1.1, 'n': 0.7, 'k': 1, 'lam': 0.02},
    'solvers.augmentation.deterministic_equivalent': lambda: {
        'moments': sa.linear_moments(np.eye(4), np.ones(4) / 2, sa.AdditiveNoise(0.3)), 'n': 6, 'k': 2, 'lam': 0.1},
    'solvers.augmentation.linear_equivalent': lambda: {'sigma_diag': np.ones(1), 'family': sa.AdditiveNoise(0.3),
                                                       'n_over_d': 0.7, 'k': 1, 'lam': 0.02, 'label_noise': 0.1},
    'solvers.augmentation.conditional_equivalent': lambda: {
        'feature_weights': np.random.default_rng(2).standard_normal((6, 4)) / 2, 'beta': np.ones(4) / 2, 'n': 8,
        'lam': 0.1, 'k': 2, 'activation': 'relu', 'noise_var': 0.3},
    'solvers.augmentation.minimise_log': lambda: {'fun': lambda x: (math.log(x) - 1.0) ** 2, 'low': 0.1, 'high': 10.0},
    'solvers.double_descent.gd_test_error': lambda: {'alpha': 0.5, 'lr': 0.5, 'steps': 100, 'noise': 0.1},
    'solvers.double_descent.correlation': lambda: {'t': 3.0, 't_prime': 2.0, 'alpha': 0.5},
    'solvers.double_descent.fd_plot_theory': lambda: {'eigs': np.linspace(0.0, 2.0, 5), 'temperature': 0.2, 'dt': 0.02,
                                                      'n_steps': 200, 'wait_steps': np.array([0, 20, 45, 60]),
                                                      'weights': np.full(5, 0.2)},
    'solvers.double_descent.gd_response': lambda: {'alpha': 0.5, 'lr': 0.3, 'steps': np.array([0, 10, 100])},
    'solvers.double_descent.integrated_fd_ratio': lambda: {'alpha': 0.9, 'dt': 0.05, 'n_steps': 200,
                                                           'wait_steps': np.array([20, 100])},
    'solvers.grokking.lucas_u': lambda: {'k': np.arange(6), 'p': 1.0, 'q': -1.0},
    'solvers.grokking.decompose': lambda: {'problem': _linear_problem()},
    'solvers.grokking.fixed_point': lambda: {'problem': _linear_problem(), 'lam': 0.01, 'beta': 0.9},
    'solvers.grokking.closed_form_trajectory': lambda: {'problem': _linear_problem(), 'theta0': np.ones(5),
                                                        'ks': np.arange(0, 50, 10), 'eta': 0.1, 'lam': 0.01, 'beta': 0.9},
    'solvers.grokking.population_risk': lambda: {'problem': _linear_problem(), 'theta': np.ones(5)},
    'solvers.grokking.risk_curve': lambda: {'problem': _linear_problem(), 'theta0': np.ones(5), 'ks': np.arange(0, 50, 10),
                                            'eta': 0.1, 'lam': 0.01, 'beta': 0.9},
    'solvers.grokking.late_time_risk_coefficients': lambda: {'problem': _linear_problem(), 'theta0': np.ones(5),
                                                             'lam': 0.01},
    'solvers.grokking.propagation_gain': lambda: {'a': np.array([0.01, 0.1]), 'beta': 0.9},
    'solvers.grokking.roundoff_bound': lambda: {'problem': _linear_problem(), 'eta': 0.1, 'lam': 0.01, 'beta': 0.9,
                                                'state_norm': 1.0},
    'solvers.perceptron.gaussian_average': lambda: {'fun': lambda z: z * z, 'n': 101},
    'solvers.perceptron.log_h': lambda: {'x': np.linspace(-3.0, 3.0, 7)},
    'solvers.perceptron.ogp_threshold': lambda: {'low': 0.745, 'high': 0.75, 'xtol': 0.01},  # xtol > the bracket: the two ends only
    'solvers.perceptron.annealed_storage': lambda: {'alpha': 0.5, 'beta': 2.0},
    'solvers.perceptron.annealed_teacher_student': lambda: {'alpha': 0.5},
    'solvers.gluing.haar_unitary': lambda: {'shape': (2, 3), 'd': 2, 'rng': np.random.default_rng(0)},
    'solvers.gluing.riemannian_step': lambda: {'W': np.eye(2)[None].astype(complex), 'G': 0.1 * np.ones((1, 2, 2)), 'lr': 0.1},
    'solvers.gluing.module_loss_grad': lambda: {'W': np.array([np.diag([1j, -1j]) ** e for e in range(4)])[None],
                                                'local': _z4_table(), 'beta': 4.0, 'hom_weight': 1.0},
    'solvers.gluing.character_multiplicities': lambda: {'W': np.array([np.diag([1j, -1j]) ** e for e in range(4)]),
                                                        'characters': np.array([[1j ** (e * k) for k in range(4)] for e in range(4)])},
    'solvers.gluing.cyclic_classes': lambda: {'X': np.diag([1j, -1j]), 'm': 4},
    'solvers.gluing.sample_amalgam_representations': lambda: {'a': 4, 'b': 6, 'c': 2, 'd': 2, 'samples': 10,
                                                              'rng': np.random.default_rng(0)},
    'solvers.gluing.table_floor': lambda: {'model': _model_g(), 'class_a': (0, 1), 'class_b': (1, 2), 'restarts': 2},
    'solvers.gluing.unitary_polar_factor': lambda: {'X': np.array([[1.0, 0.1], [0.0, 1.0]])},
    'theory.strata.faithful_modules': lambda: {'G': ts.quaternion_group(), 'region': ts.quaternion_group().subgroup("i"), 'd': 2},
    'theory.strata.restriction_multiplicities': lambda: {'G': ts.quaternion_group(), 'region': ts.quaternion_group().subgroup("i")},
    'theory.strata.extendable_module_pairs': lambda: {'G': ts.symmetric_group(3), 'region_a': ts.symmetric_group(3).subgroup("s"),
                                                      'region_b': ts.symmetric_group(3).subgroup("r"), 'd': 2},
    'solvers.strata.optimal_gluing': lambda: {'X': np.diag([1.0, -1.0]), 'Y': np.diag([-1.0, 1.0])},
    'solvers.strata.unitary_from_hermitian': lambda: {'h': np.linspace(-0.5, 0.5, 4), 'd': 2},
    'solvers.strata.hermitian_from_coordinates': lambda: {'h': np.linspace(-0.5, 0.5, 4), 'd': 2},
    'solvers.strata.minimise_over_unitary': lambda: {'fun': lambda u: abs(u[0, 0]) ** 2, 'd': 2,
                                                     'rng': np.random.default_rng(4), 'restarts': 2},
    'solvers.strata.classify_stratum': lambda: {'X': np.diag([1.0, 1.0, -1.0]), 'm': 2},
    'solvers.strata.hessian': lambda: {'model': ss.q8_model_t(2)[0], 'WA': -_q8_rho()[list(ss.q8_model_t(2)[0].region_a)],
                                       'WB': _q8_rho()[list(ss.q8_model_t(2)[0].region_b)], 'w_cross': 1.0},
    'solvers.strata.zero_set_certificate': lambda: {'model': ss.q8_model_t(2)[0],
                                                    'WA': -_q8_rho()[list(ss.q8_model_t(2)[0].region_a)],
                                                    'WB': _q8_rho()[list(ss.q8_model_t(2)[0].region_b)]},
    'solvers.strata.polar': lambda: {'X': np.array([[1.0, 0.1], [0.0, 1.0]])},
    'solvers.strata.sign_flip_min_eigenvalue': lambda: {'w_cross': 1.0},
    'solvers.strata.nearest_homomorphism': lambda: {'rho': np.array([np.diag([1j, -1j]) ** e for e in range(4)]), 'generator': 1, 'power_index': np.arange(4),
                                                    'order': 4},
    'solvers.strata.gluing_objective': lambda: {'rho_a': _q8_rho()[:4], 'rho_b': _q8_rho()[:4], 'U': np.eye(2)},
    'solvers.strata.module_type': lambda: {'rho': np.diag([1j, -1j])},
    'solvers.strata.min_gluing': lambda: {'rho_a': _q8_rho()[:4], 'rho_b': _q8_rho()[:4], 'restarts': 2,
                                          'rng': np.random.default_rng(5)},
    'solvers.strata.q8_model_t': lambda: {'d': 2},
    'solvers.strata.model_t_exact_table': lambda: {'d': 2},
    'solvers.strata.canonical_min_gluing': lambda: {'class_a': (0, 1, 0, 1), 'class_b': (1, 1, 0, 0), 'restarts': 2},
    'solvers.transitive.krr_general': lambda: {'n': 5, 'exception': (2, 4), 'kernel': lambda u: u},
    'solvers.transitive.margin_threshold': lambda: {'n': 9, 'exception': (4, 6), 'pair': (1, 7), 'grid': 50},
}



CANARY = "gentheory-canary"
#: a string that, if evaluated as Python, creates the canary file in the working directory
EVIL = f"__import__('pathlib').Path('{CANARY}').touch() or 1"


class _Hang(BaseException):
    """Raised by the alarm when a call outlives :data:`SECONDS` (a BaseException: no ``except Exception`` eats it)."""


def _alarm(signum, frame):
    raise _Hang


def _function(key: str) -> Callable:
    module, name = key.rsplit(".", 1)
    return getattr(importlib.import_module(f"gentheory.{module}"), name)


def _with_string(value: object) -> Iterator[object]:
    """The canary string in place of ``value``, and in place of the first element of a tuple or list."""
    yield EVIL
    if isinstance(value, (tuple, list)) and value:
        yield (EVIL, *value[1:])


def _is_number(value: object) -> bool:
    return isinstance(value, (Number, sp.Number)) and not isinstance(value, (bool, complex))


def _hostile(value: object) -> Iterator[tuple[str, object]]:
    """(label, replacement) pairs for one argument of a valid call: non-numbers, NaN, ±inf, sizes out of reach."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "iufc" and value.size:
        with_nan = value.astype(complex if value.dtype.kind == "c" else float)
        with_nan.flat[0] = np.nan
        with_inf = with_nan.copy()
        with_inf.flat[0] = np.inf
        yield from [("array with nan", with_nan), ("array with inf", with_inf), ("extra axis", value[None, None]),
                    ("string", EVIL), ("None", None)]
        return
    if isinstance(value, tuple) and value and all(_is_number(v) for v in value):
        yield from [("element nan", (math.nan, *value[1:])), ("element string", (EVIL, *value[1:])),
                    ("element huge", (10**12, *value[1:])), ("string", EVIL), ("None", None), ("scalar", 3)]
        return
    if not _is_number(value):
        return
    yield from [("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf), ("string", EVIL), ("numeric string", "1"),
                ("list", [value]), ("shaped array", np.array([float(value)] * 2)), ("None", None),
                ("complex", complex(1, 1)), ("-1", -1), ("0", 0), ("huge size", 10**12), ("-huge", -(10**12)),
                ("1e300", 1e300), ("0-d array", np.array(float(value))), ("sympy nan", sp.nan), ("sympy oo", sp.oo)]


def _nan_in(result: object, depth: int = 0) -> bool:
    """True if a NaN is anywhere in ``result`` (numbers, arrays, SymPy expressions, mpmath, containers, dataclasses)."""
    if depth > 6 or result is None or isinstance(result, (str, bytes, bool)):
        return False
    if isinstance(result, np.ndarray):
        return result.dtype.kind in "fc" and bool(np.isnan(result).any())
    if isinstance(result, (float, complex, np.floating, np.complexfloating)):
        return bool(np.isnan(result))
    if isinstance(result, (mp.mpf, mp.mpc)):
        return bool(mp.isnan(result))
    if isinstance(result, sp.Basic):
        return bool(result.has(sp.nan))
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return any(_nan_in(getattr(result, f.name), depth + 1) for f in dataclasses.fields(result))
    if isinstance(result, dict):
        return any(_nan_in(v, depth + 1) for v in result.values())
    if isinstance(result, (list, tuple, set, frozenset)):
        return any(_nan_in(v, depth + 1) for v in result)
    return False


def _attempt(func: Callable, kwargs: dict) -> str | None:
    """None if ``func(**kwargs)`` raises ParameterError/SolverConvergenceError or returns no NaN within the limit,
    else what went wrong."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, SECONDS)
    try:
        result = func(**kwargs)
    except (ParameterError, SolverConvergenceError):
        return None
    except _Hang:
        return f"still running after {SECONDS} s"
    except Exception as exc:  # noqa: BLE001  (what the test looks for)
        return f"{type(exc).__name__}: {str(exc)[:120]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return "NaN in the result" if _nan_in(result) else None


def _public_functions() -> list[str]:
    found = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        found += [f"{module_name.removeprefix('gentheory.')}.{name}" for name, obj in vars(module).items()
                  if inspect.isfunction(obj) and not name.startswith("_") and obj.__module__ == module_name]
    return sorted(found)


def test_every_public_function_has_a_valid_call() -> None:
    missing = sorted(set(_public_functions()) - set(VALID))
    stale = sorted(set(VALID) - set(_public_functions()))
    assert not missing and not stale, f"add a valid call for {missing}; remove {stale}"


@pytest.mark.parametrize("key", sorted(VALID))
def test_valid_call(key: str) -> None:
    """The table's call is valid: it returns (so the hostile variants below start from a working call)."""
    _function(key)(**VALID[key]())


@pytest.mark.parametrize("key", sorted(VALID))
def test_no_argument_is_evaluated(key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A string in place of any argument is refused or used as a string, never run as code."""
    monkeypatch.chdir(tmp_path)
    func, valid = _function(key), VALID[key]()
    evaluated = []
    for arg, value in valid.items():
        for bad in _with_string(value):
            previous = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, SECONDS)
            try:
                func(**{**valid, arg: bad})
            except (_Hang, Exception):  # noqa: BLE001, S110  (only the canary matters here)
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
            if (tmp_path / CANARY).exists():
                evaluated.append(arg)
                (tmp_path / CANARY).unlink()
    assert not evaluated, f"{key} evaluated a string passed as {evaluated}"


@pytest.mark.parametrize("key", sorted(VALID))
def test_hostile_arguments(key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every number, tuple and array argument of the valid call, replaced by each hostile value in turn."""
    monkeypatch.chdir(tmp_path)
    func, valid = _function(key), VALID[key]()
    failures = [f"{arg} = {label}: {problem}" for arg, value in valid.items() for label, bad in _hostile(value)
                if (problem := _attempt(func, {**valid, arg: bad}))]
    assert not failures, f"{key}: " + "; ".join(failures)


@given(data=st.data())
def test_random_numbers(data: st.DataObject) -> None:
    """Arbitrary floats (NaN, ±inf, subnormal, huge) and integers for one numeric argument of a random function."""
    key = data.draw(st.sampled_from(sorted(VALID)), label="function")
    valid = VALID[key]()
    numeric = sorted(arg for arg, value in valid.items() if _is_number(value))
    if not numeric:
        return
    arg = data.draw(st.sampled_from(numeric), label="argument")
    bad = data.draw(st.one_of(st.floats(), st.integers(min_value=-(10**15), max_value=10**15)), label="value")
    problem = _attempt(_function(key), {**valid, arg: bad})
    assert problem is None, f"{key}({arg} = {bad!r}): {problem}"
