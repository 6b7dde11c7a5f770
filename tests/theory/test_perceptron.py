"""Exact layer of the perceptron study: annealed bounds and the mpmath reference integrals."""
import mpmath as mp
import sympy as sp

from gentheory.theory import perceptron as tp


def test_annealed_storage_capacity_is_one_at_zero_margin_and_falls_with_margin():
    assert tp.annealed_storage_capacity() == 1
    assert sp.N(tp.annealed_storage_capacity(sp.Rational(1, 2))) < 1


def test_annealed_storage_entropy_vanishes_at_capacity():
    assert sp.simplify(tp.annealed_storage_entropy(1)) == 0


def test_lyuu_rivin_annealed_bound_to_seven_digits():
    """The first-moment bound for perfect generalization, 1.44797 (Lyuu & Rivin 1992; spec §2.4)."""
    a, r = tp.annealed_teacher_student(digits=25)
    assert abs(a - mp.mpf("1.4479664")) < 5e-8
    assert abs(r - mp.mpf("0.6976")) < 5e-5
    # the potential is stationary and zero there, to the working precision
    pot = sp.lambdify((sp.Symbol("R"), sp.Symbol("a")), tp.annealed_teacher_student_potential(sp.Symbol("R"), sp.Symbol("a")), "mpmath")
    with mp.workdps(25):
        assert abs(pot(r, a)) < mp.mpf(10) ** -20


def test_gaussian_average_mp_moments():
    assert abs(tp.gaussian_average_mp(lambda z: z**4, digits=30) - 3) < mp.mpf(10) ** -25


def test_error_counting_weight_jumps_at_the_boundary_and_the_hinge_does_not():
    beta = sp.Symbol("beta", positive=True)
    assert sp.simplify(tp.boundary_jump(beta) - (1 - sp.exp(-beta))) == 0
    assert tp.boundary_jump(beta, loss="hinge") == 0
    assert tp.boundary_jump(sp.Rational(1, 2)) != 0  # any finite temperature


def test_annealed_microcanonical_entropy_is_the_legendre_transform_of_the_annealed_free_entropy():
    alpha, beta = sp.symbols("alpha beta", positive=True)
    phi = sp.log(2) + alpha * sp.log((1 + sp.exp(-beta)) / 2)
    energy, entropy = tp.legendre_entropy(phi, beta)
    assert sp.simplify(energy - alpha * sp.exp(-beta) / (1 + sp.exp(-beta))) == 0
    assert sp.simplify(entropy - tp.annealed_microcanonical_entropy(alpha, energy / alpha)) == 0
