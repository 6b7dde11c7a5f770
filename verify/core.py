"""The claim: one object behind pytest, the notebooks, the CLI report and the figures.

A :class:`Claim` is one falsifiable statement of a paper. It declares

* ``Params`` — frozen dataclass of the physical quantities the statement is about, validated in
  ``__post_init__``;
* ``Config`` and ``scales`` — what only the simulation needs (sizes, replicates, steps), at the named
  scales ``"quick"`` (seconds; tests, CI) and ``"paper"`` (figure quality);
* ``theory(params)`` — the prediction, an :class:`Estimate` (stderr 0 where exact; an
  ``error_bound`` for round-off or solver tolerance);
* ``rivals`` — one or more named alternative predictions (:class:`Rival`), each of which the same data
  must reject; at least one is the *nearest plausible* alternative a referee would raise
  (``nearest=True``). ``rival(name, params)`` computes them;
* ``simulate(params, config, rng)`` — an :class:`Observation` of the simulated quantity;
* ``sweep(scale)`` — the canonical grid for the report and the figures.

A **refuted finding** is a claim one of whose rivals is the paper's own statement (``Rival(...,
paper=True)``) and whose ``statement`` is the corrected one the data support: its verdict is REFUTED when
the paper's prediction is rejected and the corrected one passes, and FAIL when either changes.

Some statements are conditional on a realised sample (the exact risk curve *of this design*); such a
claim's ``simulate`` returns the conditional theory and rivals inside its :class:`Observation`, so
prediction and simulation always describe the same draw.

**Relevance rule.** ``relevance`` (relative) and ``relevance_abs`` set the smallest discrepancy that must be
detectable. It is at most half the distance between the theory and its nearest rival where they differ most
(so a PASS means the data separate them); a claim that needs another scale says why in ``relevance_note``.
:func:`gentheory.verify.runner.assess` records the ratio (``Verdict.relevance_ratio``) and a test enforces it.

Concrete claims stay small: shared behaviour lives in functions (:mod:`gentheory.verify._stats`,
:mod:`gentheory.verify.runner`), not in a class tower.
"""
from __future__ import annotations

import abc
import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gentheory.verify._seeding import to_jsonable

__all__ = [
    "Estimate",
    "Observation",
    "Rival",
    "Claim",
    "PointAssessment",
    "PointResult",
    "RivalOutcome",
    "Verdict",
    "register",
    "REGISTRY",
    "STATUSES",
    "SUCCESS",
]

STATUSES = ("PASS", "REFUTED", "FAIL", "UNDERPOWERED", "ERROR")
#: statuses the main job counts as success (a refuted finding is an expected outcome)
SUCCESS = ("PASS", "REFUTED")


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
        from gentheory.verify._stats import mean_and_stderr

        mean, se, n = mean_and_stderr(samples, axis=axis)
        return cls(mean, se, _as_value(error_bound), n, n - 1)

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
    theory : Estimate, optional
        The prediction conditional on the realised sample (for claims about a given draw); when None, the
        claim's unconditional ``theory(params)`` is used.
    rivals : dict of str to Estimate, optional
        Rival predictions conditional on the realised sample, by rival name; a rival not given here comes from
        the claim's ``rival(name, params)``.
    aux : dict of str to ndarray
        Arrays kept for figures (stored as NPZ, never pickled).
    info : dict
        JSON-able scalars worth reporting (fitted exponents, confidence intervals, timings).
    """

    measured: Estimate
    theory: Estimate | None = None
    rivals: Mapping[str, Estimate] = field(default_factory=dict)
    aux: Mapping[str, NDArray] = field(default_factory=dict)
    info: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Rival:
    """An alternative prediction the data must reject.

    Attributes
    ----------
    name : str
        Identifier (a Python name), e.g. ``"first_order"``.
    statement : str
        What the alternative says, in the paper's symbols.
    nearest : bool
        The nearest plausible alternative a referee would raise (a competing theory, the first-order or
        continuous-time approximation, the neighbouring exponent, the equilibrium answer); the relevance
        rule is stated against it. Every claim has at least one.
    paper : bool
        The paper's own statement, which the data contradict: the claim is a refuted finding and its
        ``statement`` is the corrected one.
    scales : tuple of str
        The scales at which the data must reject it (empty: every scale). A rival only the paper scale can
        resolve (a competing value nearer than the quick scale's resolution) is declared there alone; at the
        other scales it is reported, not assessed.
    """

    name: str
    statement: str
    nearest: bool = False
    paper: bool = False
    scales: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"rival name {self.name!r} is not an identifier")

    def assessed_at(self, scale: str) -> bool:
        """Whether the data at ``scale`` must reject this rival."""
        return not self.scales or scale in self.scales


class Claim(abc.ABC):
    """One falsifiable statement; subclass, fill the class attributes, decorate with :func:`register`.

    Class attributes
    ----------------
    id : str
        ``"study.name"``.
    statement : str
        The claim in one sentence, in the paper's symbols (for a refuted finding: the corrected statement).
    rivals : tuple of Rival
        Alternatives the same data must reject; at least one ``nearest``, at most one ``paper``.
    reference : str
        Paper, equation / theorem, or the spec section for derived results.
    Params, Config : type
        Frozen dataclasses; ``scales`` maps ``"quick"``/``"paper"`` to a ``Config``.
    relevance : float
        Smallest *relative* discrepancy that matters (power requirement); ``relevance_abs`` adds an
        absolute floor, one number or one per element of a point's value (when the theory–rival distance
        differs by element). See the relevance rule in the module docstring.
    relevance_by_scale : dict
        ``relevance_abs`` replaced at the scales named (the relevance rule holds per scale against the nearest
        rivals declared there: a scale that must separate a nearer rival declares a smaller relevance).
    relevance_note : str
        Why the relevance departs from half the distance to the nearest rival, if it does.
    interval_theory : bool
        The theory predicts a set, not a number: ``value ± error_bound`` of its :class:`Estimate` is the interval of
        values it allows (an ordinal prediction such as "the shift is negative", with the data's range as the
        far end), and rivals may do the same. The comparison is unchanged (a measurement inside the interval, up
        to z*·σ, agrees); the smallest detectable discrepancy counts only the measurement's own bound, since
        values inside the interval are not discrepancies.
    labels : tuple of str
        Names of the components when the value is a vector (for reports and CSV).
    """

    id: ClassVar[str]
    statement: ClassVar[str]
    rivals: ClassVar[tuple[Rival, ...]]
    reference: ClassVar[str]
    Params: ClassVar[type]
    Config: ClassVar[type]
    scales: ClassVar[dict[str, Any]]
    relevance: ClassVar[float] = 0.05
    relevance_abs: ClassVar[float | tuple[float, ...]] = 0.0
    relevance_by_scale: ClassVar[dict[str, float | tuple[float, ...]]] = {}
    relevance_note: ClassVar[str] = ""
    interval_theory: ClassVar[bool] = False
    labels: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def sweep(self, scale: str) -> list[Any]:
        """The canonical list of ``Params`` for this scale."""

    def theory(self, params: Any) -> Estimate:
        """Unconditional prediction. Claims about a realised sample return it from ``simulate``."""
        raise NotImplementedError(f"{self.id}: theory is conditional on the sample; see simulate()")

    def rival(self, name: str, params: Any) -> Estimate:
        """Unconditional prediction of the rival ``name``. Claims about a realised sample return it from
        ``simulate``."""
        raise NotImplementedError(f"{self.id}: rival {name!r} is conditional on the sample; see simulate()")

    @abc.abstractmethod
    def simulate(self, params: Any, config: Any, rng: np.random.Generator) -> Observation:
        """Run the simulation for one sweep point."""

    def config(self, scale: str) -> Any:
        try:
            return self.scales[scale]
        except KeyError:
            raise ValueError(f"scale = {scale!r} is not one of {tuple(self.scales)} for claim {self.id}") from None

    def params_from_dict(self, d: Mapping[str, Any]) -> Any:
        """The claim's ``Params`` rebuilt from its stored JSON form (lists back to tuples; the strings "inf",
        "-inf", "nan" that :func:`gentheory.verify._seeding.to_jsonable` writes for non-finite floats back to floats)."""
        fields = {f.name: f for f in dataclasses.fields(self.Params)}
        unknown = set(d) - set(fields)
        if unknown:
            raise ValueError(f"{self.id}: stored params have fields {sorted(unknown)} that {self.Params.__name__} "
                             "does not")

        def back(v: Any) -> Any:
            if isinstance(v, list):
                return tuple(back(x) for x in v)
            return float(v) if isinstance(v, str) and v in ("inf", "-inf", "nan") else v

        return self.Params(**{k: back(v) for k, v in d.items()})

    def relevance_floor(self, scale: str) -> float | tuple[float, ...]:
        """The absolute relevance floor at ``scale``: ``relevance_by_scale[scale]``, else ``relevance_abs``."""
        return self.relevance_by_scale.get(scale, self.relevance_abs)

    @property
    def refuted_rival(self) -> Rival | None:
        """The paper's statement this claim refutes, if it is a refuted finding."""
        return next((r for r in self.rivals if r.paper), None)

    def __repr__(self) -> str:
        return f"<Claim {self.id}>"


REGISTRY: dict[str, Claim] = {}
"""Claim id -> instance, filled by :func:`register` as study modules are imported; read it through
:mod:`gentheory.verify.claims`, which imports the studies (so this module imports none of them)."""


def register(cls: type[Claim]) -> type[Claim]:
    """Class decorator adding one instance of ``cls`` to the registry under ``cls.id``."""
    cid = cls.id
    if "." not in cid:
        raise ValueError(f"claim id {cid!r} must have the form 'study.name'")
    where = f"{cls.__module__}.{cls.__qualname__}"
    if cid in REGISTRY:
        registered = type(REGISTRY[cid])
        if f"{registered.__module__}.{registered.__qualname__}" != where:  # a module reloaded re-registers
            raise ValueError(f"claim id {cid!r} registered twice: by {registered.__module__}."
                             f"{registered.__qualname__} and by {where}")
    for attr in ("statement", "rivals", "reference", "Params", "Config", "scales"):
        if not hasattr(cls, attr):
            raise TypeError(f"claim {cid} lacks the class attribute {attr!r}")
    names = [r.name for r in cls.rivals]
    if not names or len(set(names)) != len(names):
        raise TypeError(f"claim {cid}: rivals {names} must be one or more, with distinct names")
    if sum(r.paper for r in cls.rivals) > 1:
        raise TypeError(f"claim {cid}: at most one rival is the paper's refuted statement")
    for scale in set(cls.relevance_by_scale) | {sc for r in cls.rivals for sc in r.scales}:
        if scale not in cls.scales:
            raise TypeError(f"claim {cid}: scale {scale!r} (a rival's or relevance_by_scale's) is not one of "
                            f"{tuple(cls.scales)}")
    for scale in cls.scales:
        if not any(r.nearest and r.assessed_at(scale) for r in cls.rivals):
            raise TypeError(f"claim {cid}: no nearest rival is assessed at scale {scale!r}")
    REGISTRY[cid] = cls()
    return cls


@dataclass
class PointAssessment:
    """How one point's numbers compare with the theory and each rival (depends on the whole sweep through z*).

    Attributes
    ----------
    score : float
        Largest normalised discrepancy from the theory (> 1 rejects it): z/z* for statistical elements, d/e for
        deterministic ones.
    z : list of float
        z of every element against the theory.
    statistical : list of bool
        Which elements carry a standard error.
    delta_min : list of float
        Smallest discrepancy each element detects with probability 0.8 (plus its error bound).
    relevance : list of float
        The declared relevance at each element.
    rival_z : dict of str to list of float
        z of every element against each rival (NaN where the rival makes no prediction).
    rival_rejected : dict of str to bool
        Whether this point rejects each rival.
    """

    score: float
    z: list[float]
    statistical: list[bool]
    delta_min: list[float]
    relevance: list[float]
    rival_z: dict[str, list[float]]
    rival_rejected: dict[str, bool]

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(dataclasses.asdict(self))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "PointAssessment":
        def floats(v: Any) -> list[float]:
            return [float(x) for x in np.atleast_1d(np.asarray(v, dtype=float))]

        return cls(float(d["score"]), floats(d["z"]), [bool(x) for x in np.atleast_1d(d["statistical"])],
                   floats(d["delta_min"]), floats(d["relevance"]), {k: floats(v) for k, v in d["rival_z"].items()},
                   {k: bool(v) for k, v in d["rival_rejected"].items()})


@dataclass
class PointResult:
    """Everything computed at one sweep point (stored as JSON + NPZ); ``assessment`` is filled by
    :func:`gentheory.verify.runner.assess` and stored with the verdict."""

    claim: str
    params: dict[str, Any]
    theory: Estimate
    measured: Estimate
    rivals: dict[str, Estimate]
    info: dict[str, Any]
    seed_entropy: list[int]
    elapsed: float
    key: str
    aux: dict[str, NDArray] = field(default_factory=dict)
    error: str | None = None
    assessment: PointAssessment | None = None

    @property
    def typed_params(self) -> Any:
        """The stored params rebuilt as the claim's ``Params`` (validated again by its ``__post_init__``)."""
        if self.claim not in REGISTRY:
            raise KeyError(f"claim {self.claim!r} is not registered; call verify.claims.load_studies() first")
        return REGISTRY[self.claim].params_from_dict(self.params)

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in ("aux", "assessment")}
        for k in ("theory", "measured"):
            d[k] = getattr(self, k).to_dict()
        d["rivals"] = {name: est.to_dict() for name, est in self.rivals.items()}
        d["aux_keys"] = sorted(self.aux)
        return to_jsonable(d)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], aux: Mapping[str, NDArray] | None = None) -> "PointResult":
        return cls(
            claim=d["claim"],
            params=dict(d["params"]),
            theory=Estimate.from_dict(d["theory"]),
            measured=Estimate.from_dict(d["measured"]),
            # stores written before rivals were named hold one unnamed "rival" (read by gentheory compare)
            rivals={name: Estimate.from_dict(e) for name, e in (d["rivals"] if "rivals" in d else {"rival": d["rival"]}).items()},
            info=dict(d.get("info", {})),
            seed_entropy=list(d["seed_entropy"]),
            elapsed=float(d["elapsed"]),
            key=d["key"],
            aux=dict(aux or {}),
            error=d.get("error"),
        )


@dataclass
class RivalOutcome:
    """One rival over a sweep: its statement, whether the data reject it, and how strongly."""

    name: str
    statement: str
    nearest: bool
    paper: bool
    rejected: bool
    z_max: float
    points_rejected: int
    #: False for a rival declared at other scales only (reported, not assessed, at this one)
    assessed: bool = True

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "RivalOutcome":
        return cls(str(d["name"]), str(d["statement"]), bool(d["nearest"]), bool(d["paper"]), bool(d["rejected"]),
                   float(d["z_max"]), int(d["points_rejected"]), bool(d.get("assessed", True)))

    @property
    def outcome(self) -> str:
        """"rejected", "NOT rejected", or, for a rival declared at other scales, "not assessed at this scale"."""
        if not self.assessed:
            return "not assessed at this scale"
        return "rejected" if self.rejected else "NOT rejected"

    @property
    def mark(self) -> str:
        """✓ rejected, ✗ not rejected, – not assessed at this scale (for tables)."""
        return "–" if not self.assessed else ("✓" if self.rejected else "✗")


@dataclass
class Verdict:
    """The outcome of checking one claim over its sweep.

    ``status`` is PASS (no point rejected the theory, every rival was rejected, and the check is powered for
    the declared relevance), REFUTED (the same for a refuted finding: the paper's statement is rejected and
    the corrected one passes), FAIL (some point rejected the theory, or a refuted finding's paper statement
    is no longer rejected), UNDERPOWERED (no rejection, but the data could not have detected a relevant
    discrepancy, or could not reject a rival), or ERROR (the simulation raised).
    """

    claim: str
    statement: str
    reference: str
    scale: str
    status: str
    kind: str
    z_max: float
    z_star: float
    m: int
    alpha: float
    rivals: list[RivalOutcome]
    delta_min_ratio: float
    relevance_ratio: float
    points: list[PointResult]
    elapsed: float
    provenance: dict[str, Any] = field(default_factory=dict)
    message: str = ""

    @property
    def rival_rejected(self) -> bool:
        """Every rival assessed at this scale rejected by the data."""
        return all(r.rejected for r in self.rivals if r.assessed)

    @property
    def theory_rejected(self) -> bool:
        """Some point rejects the theory (a false alarm when the theory is right)."""
        return any(p.assessment is not None and p.assessment.score > 1 for p in self.points)

    def to_dict(self, *, with_points: bool = True) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "points"}
        d["rivals"] = [dataclasses.asdict(r) for r in self.rivals]
        if with_points:
            d["points"] = [p.to_dict() | {"assessment": None if p.assessment is None else p.assessment.to_dict()}
                           for p in self.points]
        return to_jsonable(d)

    def __str__(self) -> str:
        rivals = ", ".join(f"{r.name} {r.outcome} (max z {r.z_max:.3g})" for r in self.rivals)
        if self.kind == "deterministic":
            test = f"deterministic; max |sim − theory| / bound = {self.z_max:.3g} vs 1"
        else:
            test = f"statistical; max z = {self.z_max:.3g} vs z* = {self.z_star:.3g} over m = {self.m} numbers"
        return f"{self.claim}: {self.status} ({test}; rivals: {rivals})"
