"""The claim: one object behind pytest, the notebooks, the CLI report and the figures.

A :class:`Claim` is one falsifiable statement of a paper. It declares

* ``Params`` — frozen dataclass of the physical quantities the statement is about, validated in
  ``__post_init__``;
* ``Config`` and ``scales`` — what only the simulation needs (sizes, replicates, steps), at the named
  scales ``"quick"`` (seconds; tests, CI) and ``"paper"`` (figure quality);
* ``theory(params)`` — the prediction, an :class:`Estimate` (stderr 0 where exact; an
  ``error_bound`` for round-off or solver tolerance);
* ``rival(params)`` — a plausible *wrong* prediction that the same data must reject;
* ``simulate(params, config, rng)`` — an :class:`Observation` of the simulated quantity;
* ``sweep(scale)`` — the canonical grid for the report and the figures.

Some statements are conditional on a realised sample (the exact risk curve *of this design*); such a
claim's ``simulate`` returns the conditional theory and rival inside its :class:`Observation`, so
prediction and simulation always describe the same draw.

Concrete claims stay small: shared behaviour lives in functions (:mod:`verify._stats`,
:mod:`verify.runner`), not in a class tower.
"""
from __future__ import annotations

import abc
import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

from verify._seeding import to_jsonable

__all__ = [
    "Estimate",
    "Observation",
    "Claim",
    "PointResult",
    "Verdict",
    "register",
    "REGISTRY",
    "STATUSES",
]

STATUSES = ("PASS", "FAIL", "UNDERPOWERED", "ERROR")


def _as_value(x: ArrayLike) -> float | NDArray:
    arr = np.asarray(x, dtype=float)
    return float(arr) if arr.ndim == 0 else arr


@dataclass(frozen=True)
class Estimate:
    """A number (or array) with its uncertainty.

    Attributes
    ----------
    value : float or ndarray
        The estimate.
    stderr : float or ndarray
        1-sigma statistical error (independent replicates: sd/√R); 0 for exact or deterministic
        quantities.
    error_bound : float or ndarray
        Deterministic error bound (round-off, solver tolerance, a proven remainder); 0 if exact.
    n : int or None
        Independent replicates behind ``value`` (None for a deterministic computation).
    dof : float or ndarray or None
        Degrees of freedom of ``stderr`` when it is itself estimated from a sample (R − 1 for a mean of R
        replicates; Welch–Satterthwaite for a linear combination of such means). The verdict then uses
        Student-t quantiles, so a standard error from few replicates does not inflate the false-alarm
        rate. None: ``stderr`` is known or has so many degrees of freedom that the normal law applies.
    """

    value: float | NDArray
    stderr: float | NDArray = 0.0
    error_bound: float | NDArray = 0.0
    n: int | None = None
    dof: float | NDArray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _as_value(self.value))
        object.__setattr__(self, "stderr", _as_value(self.stderr))
        object.__setattr__(self, "error_bound", _as_value(self.error_bound))
        if self.dof is not None:
            dof = _as_value(self.dof)
            if np.any(np.asarray(dof) < 1):
                raise ValueError(f"dof = {dof} is outside [1, inf]")
            object.__setattr__(self, "dof", dof)

    @classmethod
    def from_replicates(cls, samples: ArrayLike, *, axis: int = 0, error_bound: ArrayLike = 0.0) -> "Estimate":
        """Mean and sd/√R over independent replicates stacked along ``axis``, with R − 1 degrees of freedom."""
        from verify._stats import mean_and_stderr

        mean, se, n = mean_and_stderr(samples, axis=axis)
        return cls(mean, se, error_bound, n, n - 1)

    def __str__(self) -> str:
        def fmt(v: Any) -> str:
            return f"{v:.6g}" if np.ndim(v) == 0 else np.array2string(np.asarray(v), precision=4, threshold=6)

        s = fmt(self.value)
        if np.any(np.asarray(self.stderr) > 0):
            s += f" ± {fmt(self.stderr)}"
        if np.any(np.asarray(self.error_bound) > 0):
            s += f" (bound {fmt(self.error_bound)})"
        if self.n is not None:
            s += f" (n={self.n})"
        return s

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({"value": self.value, "stderr": self.stderr, "error_bound": self.error_bound, "n": self.n,
                            "dof": self.dof})

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Estimate":
        def arr(v: Any) -> Any:
            return np.asarray(v, dtype=float) if isinstance(v, (list, str)) else v

        dof = d.get("dof")
        return cls(arr(d["value"]), arr(d["stderr"]), arr(d["error_bound"]), d.get("n"),
                   None if dof is None else arr(dof))


@dataclass(frozen=True)
class Observation:
    """What one simulation of one sweep point yields.

    Attributes
    ----------
    measured : Estimate
        The simulated quantity.
    theory, rival : Estimate, optional
        Predictions conditional on the realised sample (for claims about a given draw); when None,
        the claim's unconditional ``theory(params)`` / ``rival(params)`` are used.
    aux : dict of str to ndarray
        Arrays kept for figures (stored as NPZ, never pickled).
    info : dict
        JSON-able scalars worth reporting (fitted exponents, confidence intervals, timings).
    """

    measured: Estimate
    theory: Estimate | None = None
    rival: Estimate | None = None
    aux: Mapping[str, NDArray] = field(default_factory=dict)
    info: Mapping[str, Any] = field(default_factory=dict)


class Claim(abc.ABC):
    """One falsifiable statement; subclass, fill the class attributes, decorate with :func:`register`.

    Class attributes
    ----------------
    id : str
        ``"study.name"``.
    statement : str
        The claim in one sentence, in the paper's symbols.
    rival_statement : str
        The plausible wrong prediction that the data must reject.
    reference : str
        Paper, equation / theorem, or the spec section for derived results.
    Params, Config : type
        Frozen dataclasses; ``scales`` maps ``"quick"``/``"paper"`` to a ``Config``.
    relevance : float
        Smallest *relative* discrepancy that matters (power requirement); ``relevance_abs`` adds an
        absolute floor.
    labels : tuple of str
        Names of the components when the value is a vector (for reports and CSV).
    version : int
        Bump when the claim's computation changes, so stored results are recomputed.
    """

    id: ClassVar[str]
    statement: ClassVar[str]
    rival_statement: ClassVar[str]
    reference: ClassVar[str]
    Params: ClassVar[type]
    Config: ClassVar[type]
    scales: ClassVar[dict[str, Any]]
    relevance: ClassVar[float] = 0.05
    relevance_abs: ClassVar[float] = 0.0
    labels: ClassVar[tuple[str, ...]] = ()
    version: ClassVar[int] = 1

    @abc.abstractmethod
    def sweep(self, scale: str) -> list[Any]:
        """The canonical list of ``Params`` for this scale."""

    def theory(self, params: Any) -> Estimate:
        """Unconditional prediction. Claims about a realised sample return it from ``simulate``."""
        raise NotImplementedError(f"{self.id}: theory is conditional on the sample; see simulate()")

    def rival(self, params: Any) -> Estimate:
        """Unconditional rival prediction."""
        raise NotImplementedError(f"{self.id}: rival is conditional on the sample; see simulate()")

    @abc.abstractmethod
    def simulate(self, params: Any, config: Any, rng: np.random.Generator) -> Observation:
        """Run the simulation for one sweep point."""

    def bias(self, params: Any, config: Any) -> float | NDArray:
        """Declared finite-size bias budget (1-sigma-like scale added in quadrature); 0 by default."""
        return 0.0

    def config(self, scale: str) -> Any:
        try:
            return self.scales[scale]
        except KeyError:
            raise ValueError(f"scale = {scale!r} is not one of {tuple(self.scales)} for claim {self.id}") from None

    def __repr__(self) -> str:
        return f"<Claim {self.id}>"


REGISTRY: dict[str, Claim] = {}
"""Claim id -> instance, filled by :func:`register` as study modules are imported; read it through
:mod:`verify.claims`, which imports the studies (so this module imports none of them)."""


def register(cls: type[Claim]) -> type[Claim]:
    """Class decorator adding one instance of ``cls`` to the registry under ``cls.id``."""
    cid = cls.id
    if "." not in cid:
        raise ValueError(f"claim id {cid!r} must have the form 'study.name'")
    if cid in REGISTRY and type(REGISTRY[cid]).__qualname__ != cls.__qualname__:
        raise ValueError(f"claim id {cid!r} registered twice")
    for attr in ("statement", "rival_statement", "reference", "Params", "Config", "scales"):
        if not hasattr(cls, attr):
            raise TypeError(f"claim {cid} lacks the class attribute {attr!r}")
    REGISTRY[cid] = cls()
    return cls


@dataclass
class PointResult:
    """Everything computed at one sweep point (stored as JSON + NPZ)."""

    claim: str
    params: dict[str, Any]
    theory: Estimate
    measured: Estimate
    rival: Estimate
    bias: float | NDArray
    info: dict[str, Any]
    seed_entropy: list[int]
    elapsed: float
    key: str
    aux: dict[str, NDArray] = field(default_factory=dict)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "aux"}
        for k in ("theory", "measured", "rival"):
            d[k] = getattr(self, k).to_dict()
        d["aux_keys"] = sorted(self.aux)
        return to_jsonable(d)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], aux: Mapping[str, NDArray] | None = None) -> "PointResult":
        bias = d["bias"]
        return cls(
            claim=d["claim"],
            params=dict(d["params"]),
            theory=Estimate.from_dict(d["theory"]),
            measured=Estimate.from_dict(d["measured"]),
            rival=Estimate.from_dict(d["rival"]),
            bias=np.asarray(bias, float) if isinstance(bias, list) else float(bias),
            info=dict(d.get("info", {})),
            seed_entropy=list(d["seed_entropy"]),
            elapsed=float(d["elapsed"]),
            key=d["key"],
            aux=dict(aux or {}),
            error=d.get("error"),
        )


@dataclass
class Verdict:
    """The outcome of checking one claim over its sweep.

    ``status`` is PASS (no point rejected the theory, the rival was rejected, and the check is
    powered for the declared relevance), FAIL (some point rejected the theory), UNDERPOWERED (no
    rejection, but the data could not have detected a relevant discrepancy, or could not reject the
    rival), or ERROR (the simulation raised).
    """

    claim: str
    statement: str
    rival_statement: str
    reference: str
    scale: str
    status: str
    kind: str
    z_max: float
    z_star: float
    m: int
    alpha: float
    rival_rejected: bool
    rival_z_max: float
    rival_points_rejected: int
    delta_min_ratio: float
    points: list[PointResult]
    elapsed: float
    provenance: dict[str, Any] = field(default_factory=dict)
    message: str = ""

    def to_dict(self, *, with_points: bool = True) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "points"}
        if with_points:
            d["points"] = [p.to_dict() for p in self.points]
        return to_jsonable(d)

    def summary_row(self) -> dict[str, Any]:
        """One row of the report: the worst point's theory, simulation and z."""
        worst = max(self.points, key=lambda p: p.info.get("_score", 0.0), default=None)
        return {
            "claim": self.claim,
            "status": self.status,
            "theory": str(worst.theory) if worst else "",
            "simulation": str(worst.measured) if worst else "",
            "z_max": self.z_max,
            "z_star": self.z_star,
            "rival_rejected": self.rival_rejected,
        }

    def __str__(self) -> str:
        return (
            f"{self.claim}: {self.status} ({self.kind}; max z = {self.z_max:.3g} vs z* = {self.z_star:.3g} over "
            f"m = {self.m}; rival {'rejected' if self.rival_rejected else 'NOT rejected'}, max rival z = "
            f"{self.rival_z_max:.3g})"
        )
