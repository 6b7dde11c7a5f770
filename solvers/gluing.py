r"""Model G: region modules glued by a learned basis change — the strata study's trained model of the paper's kind.

Each region :math:`X \in \{A, B\}` of a finite group G has its own module :math:`\rho_X(x) \in U(d)`, one
unitary matrix per element (the overlap C gets a copy in each module), trained on its own table only by
Model L's local loss (:func:`module_loss_grad`). Cross data are products :math:`g h` of a ∈ A and b ∈ B,
predicted by composing the two modules in module A's frame after a learned basis change U,

.. math:: M(a, b) = \rho_A(a)\,U\rho_B(b)U^*, \qquad M(b, a) = U\rho_B(b)U^*\,\rho_A(a),

and read out by one code per product label (the least-squares readout, eliminated in closed form: the
code of a label is the mean prediction over the pairs with that product). The cross loss is

.. math:: L_\times = \frac{2}{|P|}\sum_{(g,h)\in P}\|M(g,h) - \bar M(gh)\|_F^2,

with P the cross pairs of the protocol: ``"amalgam"``, the products A × B — whose fibres
:math:`\{(ac, c^{-1}b): c \in C\}` are exactly the identifications of the amalgam :math:`A *_C B`, so
:math:`L_\times` tests only the overlap — or ``"table"``, A × B and B × A, the full cross table of G.

**Floor of the amalgam loss** (derived here). For exact modules the fibre mean is
:math:`\rho_A(a)\bar D\,U\rho_B(b)U^*` with :math:`\bar D = \frac1{|C|}\sum_c \rho_A(c)U\rho_B(c)^*U^*
= \sum_\lambda \Pi^A_\lambda U\Pi^B_\lambda U^*` (character orthogonality over C; :math:`\Pi_\lambda` the
isotypic projectors), so :math:`L_\times = 2(d - \|\bar D\|_F^2) = 2(d - \sum_\lambda
\mathrm{tr}\,\Pi^A_\lambda U\Pi^B_\lambda U^*)` and

.. math:: \min_U L_\times = 2(d - r_\max) = c(n_A, n_B),

the stratum gap in the projector metric for every overlap order (not the Hoffman–Wielandt value
:math:`\tfrac12\min_U\|\rho_A(c) - U\rho_B(c)U^*\|^2`, which is smaller for m > 2). It is zero exactly when
the two overlaps lie in the same stratum (:func:`gentheory.theory.strata.gap`).

References: spec ``strata.md`` §1.4–§2.6 (Model L, the gluing objective and the family criterion).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from gentheory.solvers._shapes import check_shape
from gentheory.theory import strata as ts
from gentheory.theory._validation import ParameterError, check_choice, check_int, check_range, checked_arguments

__all__ = ["PROTOCOLS", "haar_unitary", "riemannian_step", "ModuleTable", "module_loss_grad", "ModelG",
           "character_multiplicities", "cyclic_classes", "sample_amalgam_representations", "table_floor",
           "unitary_polar_factor", "MAX_ENTRIES"]

#: cross data of Model G: the amalgam's identifications (A × B) or the full cross table (A × B and B × A)
PROTOCOLS = ("amalgam", "table")


def _h(M: NDArray) -> NDArray:
    return np.swapaxes(M.conj(), -1, -2)


def _square_stack(name: str, W: object, ndim: int = 2) -> NDArray:
    """``W`` as an array of square matrices with at least ``ndim`` axes, else a :class:`ParameterError`."""
    W = np.asarray(W)
    if W.ndim < ndim or W.shape[-1] != W.shape[-2] or W.shape[-1] == 0:
        raise ParameterError(f"{name} has shape {W.shape}; expected a stack of square matrices with ≥ {ndim} axes")
    return W


#: largest number of complex entries an array argument may ask for (a hostile size is refused, not allocated)
MAX_ENTRIES = 10**8


@checked_arguments
def haar_unitary(shape: tuple[int, ...], d: int, rng: np.random.Generator) -> NDArray:
    """Haar-distributed unitaries of size d, array ``shape + (d, d)`` (QR of a complex Ginibre matrix, phases fixed)."""
    check_int("d", d, low=1, high=64)
    for k, n in enumerate(shape):
        check_int(f"shape[{k}]", n, low=0)
    if math.prod(shape) * d * d > MAX_ENTRIES:
        raise ParameterError(f"shape = {tuple(shape)}, d = {d} asks for more than {MAX_ENTRIES:.0e} entries")
    Z = rng.standard_normal(tuple(shape) + (d, d)) + 1j * rng.standard_normal(tuple(shape) + (d, d))
    Q, R = np.linalg.qr(Z)
    ph = np.diagonal(R, axis1=-2, axis2=-1)
    return Q * (ph / np.abs(ph))[..., None, :]


@checked_arguments
def riemannian_step(W: NDArray, G: NDArray, lr: float) -> NDArray:
    r"""One Riemannian GD step on :math:`U(d)`: gradient :math:`W\,\mathrm{skew}(W^*G)`, then the polar retraction.

    The retraction is the unitary polar factor of the updated matrix: by Newton–Schulz
    (:func:`gentheory.solvers.strata.polar`, two to three times faster on small matrices) while the step stays in
    its basin, by the SVD :math:`u s v^* \mapsto u v^*` (defined for every step) otherwise.
    """
    from gentheory.solvers.strata import polar

    W = _square_stack("W", W)
    if np.shape(G) != W.shape:
        raise ParameterError(f"G has shape {np.shape(G)}; expected W's shape {W.shape}")
    check_range("lr", lr, low=0)
    M = _h(W) @ G
    X = W - lr * W @ (0.5 * (M - _h(M)))
    try:
        return polar(X)
    except ParameterError:
        return unitary_polar_factor(X)


@dataclass(frozen=True)
class ModuleTable:
    """The local data of one region: its multiplication table in local indices, as the one-hot arrays the loss uses.

    Attributes
    ----------
    table : ndarray (k, k)
        ``table[a, a']`` = local index of aa'.
    onehot : ndarray (k², k)
        Row (a, a') is the one-hot label of aa'.
    """

    table: NDArray
    onehot: NDArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        k = self.table.shape[0]
        object.__setattr__(self, "onehot", np.eye(k)[self.table].reshape(k * k, k))

    @classmethod
    def of(cls, G: ts.FiniteGroup, region: tuple[int, ...]) -> ModuleTable:
        pos = {g: i for i, g in enumerate(region)}
        return cls(np.array([[pos[G.mul(a, b)] for b in region] for a in region]))


@checked_arguments
def module_loss_grad(W: NDArray, local: ModuleTable, beta: float, hom_weight: float
                     ) -> tuple[NDArray, NDArray, NDArray]:
    r"""Model L's local loss of a batch of modules, its Euclidean gradient and the local accuracy.

    .. math:: L_\mathrm{loc} = \frac1{k^2}\sum_{a,a'}\Big[\mathrm{CE}\big(\mathrm{softmax}_x\,\beta\,
              \mathrm{Re\,tr}(\rho(x)^*\rho(a)\rho(a')),\ aa'\big) + \tfrac w2\|\rho(a)\rho(a') - \rho(aa')\|_F^2\Big]

    (decoded against the module's own embeddings, so the loss is invariant under :math:`\rho \mapsto V\rho V^*`
    and its exact zeros of the penalty are :math:`\mathrm{Hom}(A, U(d))`, every component).

    Parameters
    ----------
    W : ndarray (R, k, d, d)
    local : ModuleTable
    beta, hom_weight : float

    Returns
    -------
    loss : ndarray (R,)
    grad : ndarray (R, k, d, d)
        Euclidean gradient in the real inner product :math:`\mathrm{Re\,tr}(X^*Y)`.
    accuracy : ndarray (R,)
        Fraction of the k² local products decoded right.
    """
    if not isinstance(local, ModuleTable):
        raise ParameterError(f"local = {local!r} is not a ModuleTable")
    W = check_shape("W", W, (None, local.table.shape[0], None, None))
    _square_stack("W", W, 4)
    check_range("beta", beta, low=0, low_open=True)
    check_range("hom_weight", hom_weight, low=0)
    R, k, d, _ = W.shape
    dd = d * d
    flat = local.table.reshape(-1)
    M = (W[:, :, None] @ W[:, None, :]).reshape(R, k * k, d, d)
    Wf = W.reshape(R, k, dd)
    logits = beta * (M.reshape(R, k * k, dd) @ np.swapaxes(Wf.conj(), 1, 2)).real
    shifted = logits - logits.max(axis=-1, keepdims=True)
    prob = np.exp(shifted)
    norm = prob.sum(axis=-1, keepdims=True)
    prob /= norm
    ce = (np.log(norm[..., 0]) - np.einsum("rpx,px->rp", shifted, local.onehot)).mean(axis=-1)
    delta = (prob - local.onehot) / k**2  # dCE/dlogit averaged over pairs
    res = M - W[:, flat]
    loss = ce + 0.5 * hom_weight * np.sum(np.abs(res) ** 2, axis=(-2, -1)).mean(axis=-1)
    gM = (beta * (delta @ Wf)).reshape(R, k, k, d, d) + (hom_weight / k**2) * res.reshape(R, k, k, d, d)
    G = (gM @ _h(W)[:, None, :]).sum(axis=2) + (_h(W)[:, :, None] @ gM).sum(axis=1)
    G += (beta * (np.swapaxes(delta, 1, 2) @ M.reshape(R, k * k, dd))).reshape(R, k, d, d)
    # Σ over pairs with aa' = x of the penalty residual, as one (k × k²) contraction
    G -= (hom_weight / k**2) * (local.onehot.T @ res.reshape(R, k * k, dd)).reshape(R, k, d, d)
    accuracy = (np.argmax(logits, axis=-1) == flat).mean(axis=1)
    return loss, G, accuracy


@checked_arguments
def character_multiplicities(W: NDArray, characters: NDArray) -> tuple[NDArray, NDArray]:
    r"""Class of each module of an abelian region from its character: :math:`n_\lambda = \frac1k\sum_a
    \mathrm{tr}\,\rho(a)\,\overline{\lambda(a)}`.

    Exact for homomorphisms (then an integer vector summing to d); for a trained module, the distance of
    n from the nearest integers certifies the label (the trace is continuous, so a module within
    :math:`\delta` of a homomorphism has :math:`|n - n_\mathrm{exact}| \le \sqrt d\,\delta`).

    Parameters
    ----------
    W : ndarray (..., k, d, d)
    characters : ndarray (k, nchar)
        :math:`\lambda(a)` for the region's characters (complex).

    Returns
    -------
    counts : ndarray (..., nchar) of int
        Rounded multiplicities.
    distance : ndarray (...)
        :math:`\max_\lambda |n_\lambda - \mathrm{round}(n_\lambda)|`.
    """
    W = _square_stack("W", W, 3)
    characters = check_shape("characters", characters, (W.shape[-3], None))
    tr = np.trace(W, axis1=-2, axis2=-1)
    n = tr @ characters.conj() / W.shape[-3]
    counts = np.rint(n.real).astype(int)
    return counts, np.max(np.abs(n - counts), axis=-1)


@dataclass(frozen=True)
class ModelG:
    r"""Model G on one task (regions A, B of G) and one cross-data protocol (see the module docstring).

    Attributes
    ----------
    task : Task
    protocol : str
        ``"amalgam"`` or ``"table"``.
    d : int
        Module width.
    region_a, region_b : tuple of int
        Element indices; their order indexes the module arrays.
    overlap : tuple of int
        C = A ∩ B.
    local_a, local_b : ModuleTable
    chars_a, chars_b : ndarray (k, k)
        Character tables of the abelian regions (:func:`gentheory.theory.strata.abelian_characters` order).
    overlap_index_a, overlap_index_b : tuple of int
        Positions of C's elements in each region.
    """

    task: ts.Task
    protocol: str
    d: int
    region_a: tuple[int, ...] = field(init=False)
    region_b: tuple[int, ...] = field(init=False)
    overlap: tuple[int, ...] = field(init=False)
    local_a: ModuleTable = field(init=False, repr=False)
    local_b: ModuleTable = field(init=False, repr=False)
    chars_a: NDArray = field(init=False, repr=False)
    chars_b: NDArray = field(init=False, repr=False)
    _residual: NDArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_choice("protocol", self.protocol, PROTOCOLS)
        check_int("d", self.d, low=1, high=6)
        G = self.task.group()
        A = tuple(sorted(G.subgroup(*self.task.region_a)))
        B = tuple(sorted(G.subgroup(*self.task.region_b)))
        if not (G.is_abelian(A) and G.is_abelian(B)):
            raise ParameterError(f"{self.task.name}: Model G needs abelian regions (modules classified by characters)")
        set_ = object.__setattr__
        set_(self, "region_a", A)
        set_(self, "region_b", B)
        set_(self, "overlap", tuple(sorted(set(A) & set(B))))
        set_(self, "local_a", ModuleTable.of(G, A))
        set_(self, "local_b", ModuleTable.of(G, B))
        for name, region in (("chars_a", A), ("chars_b", B)):
            e, chars = ts.abelian_characters(G, frozenset(region))
            set_(self, name, np.array([[np.exp(2j * np.pi * lam[a] / e) for lam in chars] for a in region]))
        labels = [G.mul(a, b) for a in A for b in B]
        if self.protocol == "table":
            labels += [G.mul(b, a) for b in B for a in A]
        index = {x: i for i, x in enumerate(sorted(set(labels)))}
        onehot = np.zeros((len(labels), len(index)))
        onehot[np.arange(len(labels)), [index[x] for x in labels]] = 1.0
        # I − (fibre-averaging projector): the prediction minus its label's mean prediction
        mean = onehot @ (onehot / onehot.sum(axis=0)).T
        set_(self, "_residual", np.eye(len(labels)) - mean)

    @property
    def overlap_index_a(self) -> tuple[int, ...]:
        return tuple(self.region_a.index(c) for c in self.overlap)

    @property
    def overlap_index_b(self) -> tuple[int, ...]:
        return tuple(self.region_b.index(c) for c in self.overlap)

    @property
    def pairs(self) -> int:
        """|P|, the number of cross pairs."""
        return self._residual.shape[0]

    def cross_loss_grad(self, WA: NDArray, WB: NDArray, U: NDArray, *, grad: bool = True):
        r""":math:`L_\times` for a batch of runs and, if ``grad``, its Euclidean gradients in (WA, WB, U).

        Parameters
        ----------
        WA : ndarray (R, |A|, d, d)
        WB : ndarray (R, |B|, d, d)
        U : ndarray (R, d, d)

        Returns
        -------
        loss : ndarray (R,)
        grads : tuple (gA, gB, gU) or None
        """
        R, ka, d, _ = WA.shape
        kb = WB.shape[1]
        V = U[:, None] @ WB @ _h(U)[:, None]  # module B in A's frame
        parts = [(WA[:, :, None] @ V[:, None, :]).reshape(R, ka * kb, d * d)]
        if self.protocol == "table":
            parts.append((V[:, :, None] @ WA[:, None, :]).reshape(R, kb * ka, d * d))
        M = np.concatenate(parts, axis=1)
        D = self._residual @ M  # the residual projector is symmetric and idempotent
        n = self.pairs
        loss = 2.0 * np.sum(np.abs(D) ** 2, axis=(-2, -1)) / n
        if not grad:
            return loss, None
        GM = (4.0 / n) * D.reshape(R, n, d, d)
        g1 = GM[:, :ka * kb].reshape(R, ka, kb, d, d)
        gA = (g1 @ _h(V)[:, None]).sum(axis=2)
        gV = (_h(WA)[:, :, None] @ g1).sum(axis=1)
        if self.protocol == "table":
            g2 = GM[:, ka * kb:].reshape(R, kb, ka, d, d)
            gA = gA + (_h(V)[:, :, None] @ g2).sum(axis=1)
            gV = gV + (g2 @ _h(WA)[:, None]).sum(axis=2)
        gB = _h(U)[:, None] @ gV @ U[:, None]
        gU = (gV @ U[:, None] @ _h(WB) + _h(gV) @ U[:, None] @ WB).sum(axis=1)
        return loss, (gA, gB, gU)

    def overlap_strata(self, W: NDArray, which: str) -> tuple[NDArray, NDArray]:
        r"""Stratum of :math:`\rho(C)` for each module in a batch: multiplicities of C's characters.

        Returns (counts (R, |C|) int, certificate distance (R,)); for a trivial overlap, (R, 1) ones and zeros.
        The characters of C are indexed by :math:`\lambda_j(c^k) = \omega^{jk}` for the generator
        :math:`c = ` the smallest-index generator of C, so the columns are the stratum vector n of the theory layer.
        """
        check_choice("which", which, ("A", "B"))
        region = self.region_a if which == "A" else self.region_b
        G = self.task.group()
        C = self.overlap
        m = len(C)
        if m == 1:
            return np.ones(W.shape[:-3] + (1,), dtype=int), np.zeros(W.shape[:-3])
        c = min(g for g in C if G.closure([g]) == frozenset(C))
        idx = [region.index(G.power(c, k)) for k in range(m)]
        chars = np.exp(2j * np.pi * np.outer(np.arange(m), np.arange(m)) / m)  # row k (element c^k), column j
        return character_multiplicities(W[..., idx, :, :], chars)

    def floor(self, n_a: tuple[int, ...], n_b: tuple[int, ...]) -> int:
        """Predicted plateau height for the amalgam protocol: :func:`gentheory.theory.strata.gap` (module docstring)."""
        if self.protocol != "amalgam":
            raise ParameterError("the closed-form floor holds for the amalgam protocol; the full table adds G's relations")
        return ts.gap(n_a, n_b) if len(self.overlap) > 1 else 0

    def lipschitz(self, delta: NDArray | float) -> NDArray | float:
        r"""Bound on :math:`|\Delta L_\times|` when every module matrix moves by at most δ in Frobenius norm.

        Each prediction is a product of two unitaries conjugated by U, so it moves by at most
        :math:`\delta' = 2\delta + \delta^2`; the residual is a projection (norm ≤ 1), and
        :math:`|\,\|x\|^2 - \|y\|^2| \le \|x - y\|(\|x\| + \|y\|)` with :math:`\|D\|_F \le 2\sqrt{d|P|}` gives
        :math:`|\Delta L_\times| \le \frac2{|P|}\sqrt{|P|}\delta'(4\sqrt{d|P|} + \sqrt{|P|}\delta') = 2\delta'(4\sqrt d + \delta')`.
        """
        dp = 2 * np.asarray(delta) + np.asarray(delta) ** 2
        return 2 * dp * (4 * math.sqrt(self.d) + dp)



@checked_arguments
def cyclic_classes(X: NDArray, m: int) -> tuple[NDArray, NDArray]:
    r"""Conjugacy class of :math:`X \in \mathrm{Hom}(\mathbb Z_m, U(d))` for a batch: eigenvalue multiplicities of
    :math:`\omega^j` from the traces of :math:`X^k` (:func:`character_multiplicities` of the powers), with the
    certificate distance."""
    check_int("m", m, low=1, high=64)
    X = _square_stack("X", X)
    powers = [np.broadcast_to(np.eye(X.shape[-1]), X.shape)]
    for _ in range(m - 1):
        powers.append(powers[-1] @ X)
    chars = np.exp(2j * np.pi * np.outer(np.arange(m), np.arange(m)) / m)
    return character_multiplicities(np.stack(powers, axis=-3), chars)


@checked_arguments
def unitary_polar_factor(X: NDArray) -> NDArray:
    """The unitary factor :math:`uv^*` of the SVD :math:`usv^*` of each square matrix (the nearest unitary in Frobenius norm)."""
    u, _, vh = np.linalg.svd(_square_stack("X", X))
    return u @ vh


@checked_arguments
def sample_amalgam_representations(a: int, b: int, c: int, d: int, samples: int, rng: np.random.Generator
                                   ) -> tuple[NDArray, NDArray, NDArray]:
    r"""Random points of :math:`\mathrm{Hom}(\mathbb Z_a *_{\mathbb Z_c} \mathbb Z_b, U(d))`, :math:`x^{a/c} = y^{b/c}`,
    drawn from the relations alone (no use of the pullback theorem or of the component count).

    1. :math:`X = Q\,\mathrm{diag}(\omega_a^{k_i})Q^*`, Q Haar, each :math:`k_i` uniform on :math:`\{0,\dots,a-1\}`
       (independent eigenvalues, so that every class has probability at least :math:`a^{-d}`); :math:`Z = X^{a/c}`.
    2. :math:`Y_0` Haar, pinched to the eigenspaces of Z (:math:`\sum_\zeta P_\zeta Y_0 P_\zeta`, then its unitary
       polar factor — any Y with :math:`Y^{b/c} = Z` commutes with Z); in its eigenbasis, each eigenvalue is
       replaced by a b-th root μ drawn uniformly among those with :math:`\mu^{b/c} = \zeta`, ζ the eigenvalue of Z
       on that eigenvector.

    Returns
    -------
    X, Y : ndarray (samples, d, d)
    residual : ndarray (samples,)
        :math:`\max(\|X^a - I\|, \|Y^b - I\|, \|X^{a/c} - Y^{b/c}\|)` (Frobenius), round-off only.
    """
    for name, value in (("a", a), ("b", b), ("c", c)):
        check_int(name, value, low=1, high=12)
    if a % c or b % c:
        raise ParameterError(f"c = {c} must divide a = {a} and b = {b}")
    check_int("d", d, low=1, high=4)
    check_int("samples", samples, low=1, high=MAX_ENTRIES // 64)
    Qx = haar_unitary((samples,), d, rng)
    X = (Qx * np.exp(2j * np.pi * rng.integers(0, a, (samples, 1, d)) / a)) @ _h(Qx)
    Z = np.linalg.matrix_power(X, a // c)
    Y0 = haar_unitary((samples,), d, rng)
    roots_c = np.exp(2j * np.pi * np.arange(c) / c)
    roots_b = np.exp(2j * np.pi * np.arange(b) / b)
    Y = np.zeros_like(Y0)
    for k, zeta in enumerate(roots_c):
        # spectral projector of the normal matrix Z onto eigenvalue ζ: Π_{j≠k}(Z − ζ_j)/(ζ − ζ_j)
        P = np.broadcast_to(np.eye(d, dtype=complex), Z.shape).copy()
        for j, other in enumerate(roots_c):
            if j != k:
                P = P @ (Z - other * np.eye(d)) / (zeta - other)
        Y = Y + P @ Y0 @ P
    Y = unitary_polar_factor(Y)
    # the b-th roots allowed in the eigenspace of ζ: μ^{b/c} = ζ; per sample and eigenvalue, via Y's block
    lam, vec = np.linalg.eig(Y)
    Q = unitary_polar_factor(vec)
    zeta_of = np.einsum("...ji,...jk,...ki->...i", Q.conj(), Z, Q)  # ⟨q_i, Z q_i⟩: Z's eigenvalue on q_i
    allowed = np.abs(roots_b[None, None, :] ** (b // c) - zeta_of[..., None]) < 1e-6  # b/c roots per slot
    pick = rng.integers(0, b // c, lam.shape)
    mu = roots_b[np.argsort(~allowed, axis=-1, kind="stable")[..., :b // c][
        np.arange(samples)[:, None], np.arange(d)[None, :], pick]]
    Y = (Q * mu[..., None, :]) @ _h(Q)
    eye = np.eye(d)
    residual = np.maximum.reduce([np.linalg.norm(np.linalg.matrix_power(X, a) - eye, axis=(-2, -1)),
                                  np.linalg.norm(np.linalg.matrix_power(Y, b) - eye, axis=(-2, -1)),
                                  np.linalg.norm(Z - np.linalg.matrix_power(Y, b // c), axis=(-2, -1))])
    return X, Y, residual


@checked_arguments
def table_floor(model: ModelG, class_a: tuple[int, ...], class_b: tuple[int, ...], *, restarts: int = 8,
                rng: np.random.Generator | None = None) -> float:
    r""":math:`\min_U L_\times` for exact modules of classes ``class_a``, ``class_b`` (character multisets, as in
    :func:`gentheory.theory.strata.faithful_modules`): the plateau height of such a pair (numerical, by
    :func:`gentheory.solvers.strata.minimise_over_unitary`; 0 up to the optimiser's tolerance for pairs that
    extend to a representation of G)."""
    from gentheory.solvers.strata import minimise_over_unitary

    if not isinstance(model, ModelG):
        raise ParameterError(f"model = {model!r} is not a ModelG")
    for name, combo, chars in (("class_a", class_a, model.chars_a), ("class_b", class_b, model.chars_b)):
        if len(combo) != model.d or any(not 0 <= x < chars.shape[1] for x in combo):
            raise ParameterError(f"{name} = {combo} is not a multiset of {model.d} character indices in "
                                 f"[0, {chars.shape[1]})")
    check_int("restarts", restarts, low=1, high=64)
    diag = lambda chars, combo: np.stack([np.diag(chars[a, list(combo)]) for a in range(chars.shape[0])])  # noqa: E731
    WA = diag(model.chars_a, class_a)[None]
    WB = diag(model.chars_b, class_b)[None]
    rng = np.random.default_rng([len(class_a), *class_a, *class_b]) if rng is None else rng
    value, _ = minimise_over_unitary(lambda U: float(model.cross_loss_grad(WA, WB, U[None], grad=False)[0][0]),
                                     model.d, rng=rng, restarts=restarts)
    return max(value, 0.0)
