"""Numerical layer of gentheory: fixed points, saddle points, quadrature, spectra.

Pure functions with keyword-only options returning frozen result dataclasses. A solver that does
not reach its stated tolerance raises :class:`SolverConvergenceError`; none returns a silent last
iterate.

Modules
-------
augmentation
    Deterministic equivalents of random-feature ridge on augmented data, by moments of the augmentation.
double_descent
    Marchenko–Pastur learning curves, response, FD ratio, DMFT and the discrete-time FD plot.
grokking
    Vectorised heavy-ball mode multipliers, exact grokking times, exact risk curves of linear
    problems and the range / grokking-subspace / inactive decomposition.
perceptron
    Replica-symmetric saddle points (storage, teacher–student), frozen 1RSB, Franz–Parisi, annealed states.
strata
    Gluing over U(d), stratum classification, Model T's loss and Hessian, the Q8 instances of the study.
gluing
    Model G of the strata study: module loss, cross loss of the amalgam or the full table and its floor, retraction
    on U(d), character classes, sampling of Hom(Z_a *_{Z_c} Z_b, U(d)).
mixup
    Mixup of the augmentation study as ridge with random sample weights: the mixing law, the weights' spectrum and
    the weighted-ridge deterministic equivalent.
perceptron_local_entropy
    The α_LE proxy of the perceptron study: the load where the Franz–Parisi local entropy around the flattest
    solutions stops rising with the distance.
perceptron_teacher
    The perceptron study's teacher-centred Franz–Parisi potential: a high-margin reference of the teacher's problem,
    finite-β configurations at distance d from it, their free entropy, training error and teacher overlap.
transitive
    Numerical KRR, network kernels (NTK, NNGP) and thresholds μ*.
_errors
    :class:`SolverConvergenceError`.
_fixed_point
    The damped fixed-point iteration every solver uses.
_marchenko_pastur
    Marchenko–Pastur quadrature shared by augmentation and double descent.
_shapes
    Shape checks of array arguments.
"""
from gentheory.solvers._errors import SolverConvergenceError
from gentheory.theory._validation import ParameterError

__all__ = ["ParameterError", "SolverConvergenceError"]
