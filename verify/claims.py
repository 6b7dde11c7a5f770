"""The registry of every claim, filled by importing the study modules and the plugins.

:mod:`gentheory.verify.core` defines :func:`~gentheory.verify.core.register` and imports no study; this module imports the
studies (:func:`load_studies`) and reads the registry, so the import graph has no circle. The CLI, the
runner, tests and notebooks reach claims through the accessors here (or the same names re-exported by
:mod:`gentheory.verify`). Add a study by adding its name to :data:`STUDIES` (see the README, "Adding a study").

Plugins
-------
A package outside this repository registers claims by naming a module in the entry-point group
:data:`STUDY_GROUP` (``gentheory.studies``) of its distribution, or, without installing anything, in the
environment variable :data:`PLUGINS_ENV` (``GENTHEORY_PLUGINS``, comma-separated module names; the CLI's
``--plugin`` sets it, so pool and local Dask workers, which inherit the environment, import the same modules).
Importing the module registers its claims with :func:`~gentheory.verify.core.register`; their points' keys cover
the code of the plugin's own package that the module imports (:mod:`gentheory.verify._keys`). Figure modules use
the group :data:`FIGURE_GROUP` (``gentheory.figures``) or the same variable, so restyling a figure re-keys nothing.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import os
import re

from gentheory.verify.core import REGISTRY, Claim

__all__ = ["STUDIES", "STUDY_GROUP", "FIGURE_GROUP", "PLUGINS_ENV", "PluginError", "MODULE_NAME", "plugin_modules", "import_plugins", "load_studies", "claim_ids",
           "get_claim", "all_claims"]

STUDIES = ("augmentation", "double_descent", "grokking", "perceptron", "strata", "transitive")
#: entry-point group of installed distributions whose modules register claims
STUDY_GROUP = "gentheory.studies"
#: entry-point group of installed distributions whose modules register figures
FIGURE_GROUP = "gentheory.figures"
#: environment variable: comma-separated modules to import as plugins (claims or figures)
PLUGINS_ENV = "GENTHEORY_PLUGINS"

class PluginError(ImportError):
    """A plugin named by an entry point or ``$GENTHEORY_PLUGINS`` is not a module name or cannot be imported."""


#: a dotted Python module name (plugins are named, imported, never evaluated)
MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def plugin_modules(group: str = STUDY_GROUP) -> list[str]:
    """The plugin modules to import for ``group``: the entry points of installed distributions in ``group``, then
    the modules named in ``$GENTHEORY_PLUGINS``; each name checked to be a dotted module name (never evaluated).

    An entry point names a module (``tiny = my_package.claims``); one naming an attribute (``module:attr``) is
    refused, since importing the module is what registers.
    """
    found: list[str] = []
    for ep in importlib.metadata.entry_points(group=group):
        if ep.attr or not MODULE_NAME.fullmatch(ep.value):
            dist = ep.dist.name if ep.dist is not None else "an installed distribution"
            raise PluginError(f"entry point {ep.name!r} of group {group!r} (from {dist}) is {ep.value!r}; it must name "
                             "a module, e.g. my_package.claims")
        found.append(ep.value)
    for name in os.environ.get(PLUGINS_ENV, "").split(","):
        name = name.strip()
        if not name:
            continue
        if not MODULE_NAME.fullmatch(name):
            raise PluginError(f"${PLUGINS_ENV} names {name!r}, which is not a module name (dotted Python identifiers, "
                             "comma-separated)")
        found.append(name)
    return list(dict.fromkeys(found))


def import_plugins(group: str) -> None:
    """Import every plugin module of ``group`` (see :func:`plugin_modules`), naming the plugin in any failure."""
    for name in plugin_modules(group):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise PluginError(f"plugin {name!r} (entry-point group {group!r} or ${PLUGINS_ENV}) cannot be "
                              f"imported: {exc}") from exc


def load_studies() -> None:
    """Import every study's ``verify`` modules (``<study>`` and any ``<study>_<part>``) and every plugin's,
    registering their claims (idempotent)."""
    import pkgutil

    import gentheory.verify as package

    parts = [m.name for m in pkgutil.iter_modules(package.__path__)]
    for study in STUDIES:
        importlib.import_module(f"gentheory.verify.{study}")
        for name in sorted(n for n in parts if n.startswith(f"{study}_")):
            importlib.import_module(f"gentheory.verify.{name}")
    import_plugins(STUDY_GROUP)


def claim_ids() -> list[str]:
    """Every registered claim id, sorted."""
    load_studies()
    return sorted(REGISTRY)


def get_claim(claim_id: str) -> Claim:
    """The registered claim with this id; a study prefix alone is not accepted."""
    load_studies()
    try:
        return REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"unknown claim {claim_id!r}; registered: {', '.join(sorted(REGISTRY))}") from None


def all_claims(selection: list[str] | None = None) -> list[Claim]:
    """Claims matching ``selection`` (ids or study names such as ``"grokking"``); all if None."""
    load_studies()
    if not selection:
        return [REGISTRY[c] for c in sorted(REGISTRY)]
    out: list[Claim] = []
    for sel in selection:
        hits = [c for c in sorted(REGISTRY) if c == sel or c.split(".")[0] == sel]
        if not hits:
            raise KeyError(f"no claim or study {sel!r}; registered: {', '.join(sorted(REGISTRY))}")
        out.extend(REGISTRY[h] for h in hits if REGISTRY[h] not in out)
    return out
