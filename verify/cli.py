"""Command line: ``gentheory`` (= ``python -m gentheory``), a thin argparse layer over the library.

::

    gentheory [--plugin MODULE ...] COMMAND ...   (import MODULE first: claims or figures from another package)
    gentheory list [--json]
    gentheory run [ID|STUDY ...] [--all] [--scale quick|paper] [--json] [--workers N]
                  [--executor serial|process|dask] [--scheduler ADDRESS] [--results DIR]
                  [--seed N] [--fresh] [--alpha A]
    gentheory calibrate [ID|STUDY ...|--all] --seeds N [--first-seed K] [--scale S] [--workers N] [--json]
    gentheory calibrate ... --stored-only        (assess the stored seeds of a stopped calibration, compute nothing)
    gentheory calibrate --merge FILE [FILE ...]  (pool calibration.json of disjoint seed batches)
    gentheory report [--scale S] [--results DIR] [--json] [--html DIR [--style S]]
    gentheory figures [--style neurips|icml|...] [--format pdf png svg] [--out DIR] [--scale S]
    gentheory compare DIR_A DIR_B [--scale S] [--json]  (did an edit change any stored number? exit 1 if so)
    gentheory ship DIR [--to SHIPPED]            (copy DIR's current paper-scale verdicts into paper-results/)

At paper scale ``run`` first copies the current points of the shipped store ``paper-results/`` (``--fresh``
recomputes them), and ``report`` and ``figures`` read a claim's shipped verdict when the results directory has none
(:mod:`gentheory.verify.shipped`).

``run`` writes ``<results>/report.md`` and ``report.json`` and exits 1 unless every claim PASSes (or is REFUTED, a refuted finding holding as registered).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Sequence

from gentheory.verify._seeding import to_jsonable
from gentheory.verify._storage import ResultStore, default_results_dir
from gentheory.verify.claims import PluginError, all_claims, claim_ids
from gentheory.verify.core import SUCCESS, Claim
from gentheory.verify.figures import STYLES, MissingResultsError, export_figures
from gentheory.verify.report import render_json, render_markdown, write_reports
from gentheory.verify.runner import EXECUTORS, interrupts_raise, run_claims
from gentheory.verify.shipped import ShippedFallbackStore, refresh_command, reusable_stores, shipped_results_dir

def _int_at_least(low: int):
    """argparse type: an integer >= ``low``; a bad value exits with code 2 naming the option, value and range."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is outside [{low}, inf)")
        return value
    return parse


def _probability(text: str) -> float:
    """argparse type: a false-alarm budget in (0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{value:g} is outside (0, 1)")
    return value


def _directory_name(text: str) -> str:
    """argparse type: a non-empty path (an empty one would silently mean the current directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is empty: name a directory")
    return text


#: dask.distributed's transports that take host:port
_SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss")


def _scheduler_address(text: str) -> str:
    """argparse type: a Dask scheduler address ``scheme://host:port`` (scheme tcp, tls, ws or wss), checked before
    any connection is tried."""
    from urllib.parse import urlsplit

    parts = urlsplit(text if "://" in text else f"tcp://{text}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in _SCHEDULER_SCHEMES or not parts.hostname or port is None or port == 0 \
            or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a scheduler address: expected SCHEME://HOST:PORT with SCHEME one of "
            f"{', '.join(_SCHEDULER_SCHEMES)} and PORT in [1, 65535] (e.g. tcp://127.0.0.1:8786)")
    return text if "://" in text else f"tcp://{text}"


def _writable_directory(path: str | Path, option: str) -> str | None:
    """None when ``path`` is (or can be created as) a directory this process can write into; else one line saying
    why, naming the option. Checked before any work, so a bad results path does not cost a computed sweep."""
    import tempfile

    path = Path(path)
    if path.exists() and not path.is_dir():
        return f"{option} {str(path)!r} is not a directory"
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-check-"):
            pass
    except OSError as exc:
        return f"{option} {str(path)!r} is not a writable directory ({exc.strerror or exc})"
    return None


def _os_error(command: str, exc: OSError) -> int:
    """One line for a failed write or connection (the path or address and the OS's reason); exit status 1."""
    where = f"{exc.filename}: " if exc.filename else ""
    print(f"gentheory {command}: {where}{exc.strerror or exc}; the points stored before it are kept", file=sys.stderr)
    return 1


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--results", type=_directory_name, default=None,
                   help="results directory (default: $GENTHEORY_RESULTS, else gentheory-results at the project root, "
                        "else in the working folder)")
    p.add_argument("--scale", default="quick", choices=("quick", "paper"), help="simulation scale (default: %(default)s)")


def installed_version() -> str:
    """The installed distribution's version (``unknown`` when the source tree runs uninstalled)."""
    import importlib.metadata as md

    try:
        return md.version("gentheory")
    except md.PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    # --plugin is accepted before or after the subcommand
    plugin = argparse.ArgumentParser(add_help=False)
    plugin.add_argument("--plugin", action="append", type=_module_name, default=argparse.SUPPRESS, metavar="MODULE",
                        help="import MODULE first, registering its claims or figures (repeatable; also read from "
                             "$GENTHEORY_PLUGINS, comma-separated; installed packages use the entry-point group "
                             "gentheory.studies)")
    parser = argparse.ArgumentParser(prog="gentheory", parents=[plugin],
                                     description="Verify generalization-theory claims against simulation.")
    parser.add_argument("--version", action="version", version=f"gentheory {installed_version()}",
                        help="print the installed version and exit")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", parents=[plugin], help="list registered claims")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("run", parents=[plugin], help="check claims and write the report")
    p.add_argument("ids", nargs="*", help="claim ids or study names (default with --all: every claim)")
    p.add_argument("--all", action="store_true", help="every registered claim")
    _add_common(p)
    p.add_argument("--json", action="store_true", help="print {'verdicts': [...]} as JSON")
    _add_execution(p)
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="base seed (default: %(default)s)")
    p.add_argument("--fresh", action="store_true", help="recompute instead of resuming from stored points")

    p = sub.add_parser("calibrate", parents=[plugin], help="false-alarm rate and power of claims over independent seeds")
    p.add_argument("ids", nargs="*", help="claim ids or study names")
    p.add_argument("--all", action="store_true", help="every registered claim")
    _add_common(p)
    p.add_argument("--seeds", type=_int_at_least(1), default=None, help="independent base seeds per claim")
    p.add_argument("--first-seed", type=_int_at_least(0), default=0,
                   help="use base seeds 1 000 000 + first-seed + (0 … seeds−1) (default: %(default)s)")
    _add_execution(p)
    p.add_argument("--json", action="store_true", help="print the calibration rows as JSON")
    p.add_argument("--stored-only", action="store_true",
                   help="compute nothing: assess the seeds of the range whose points are all stored (a calibration "
                        "stopped or still running); the row's seed ranges say which")
    p.add_argument("--merge", nargs="+", metavar="FILE", default=None,
                   help="pool the calibration.json files of disjoint seed batches (no claims, no --seeds)")

    p = sub.add_parser("report", parents=[plugin], help="print the markdown report of stored verdicts")
    _add_common(p)
    p.add_argument("--json", action="store_true", help="print the stored verdicts as JSON instead")
    p.add_argument("--html", type=_directory_name, default=None, metavar="DIR",
                   help="also write a static HTML report to DIR/index.html, with every figure whose claims are stored "
                        "(DIR/figures/*.png)")
    p.add_argument("--style", default="neurips", choices=tuple(STYLES),
                   help="venue style of the HTML report's figures (default: %(default)s)")

    p = sub.add_parser("figures", parents=[plugin], help="export paper figures from stored results")
    _add_common(p)
    p.add_argument("--style", default="neurips", choices=tuple(STYLES),
                   help="venue: page sizes and fonts of its template (default: %(default)s)")
    p.add_argument("--format", nargs="+", default=["pdf", "png"], choices=("pdf", "png", "svg"),
                   help="file formats to write (default: pdf png)")
    p.add_argument("--list", action="store_true", help="list the figure names with the claims each draws, and exit")
    p.add_argument("--out", type=_directory_name, default="figures", help="output directory (default: %(default)s)")
    p.add_argument("--only", nargs="*", default=None, help="figure names (default: all)")

    p = sub.add_parser("compare", parents=[plugin], help="compare every stored number of two results directories (before/after an edit)")
    p.add_argument("first", help="results directory written by one version of the code")
    p.add_argument("second", help="results directory written by the other")
    p.add_argument("--scale", default="quick", choices=("quick", "paper"), help="simulation scale (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")

    p = sub.add_parser("ship", parents=[plugin],
                       help="copy the current paper-scale verdicts of a results directory into the shipped store")
    p.add_argument("source", help="results directory holding paper-scale verdicts (e.g. of `run --scale paper`)")
    p.add_argument("--to", type=_directory_name, default=None,
                   help="the shipped store (default: paper-results at the project root)")
    return parser


def _add_execution(p: argparse.ArgumentParser) -> None:
    """Options of the commands that compute points (run, calibrate): where and how they run."""
    p.add_argument("--workers", type=_int_at_least(1), default=None, help="worker processes (default: cores)")
    p.add_argument("--executor", default="process", choices=EXECUTORS,
                   help="serial, a process pool, or dask (default: %(default)s)")
    p.add_argument("--scheduler", type=_scheduler_address, default=None,
                   help="address of an existing dask scheduler, tcp://HOST:PORT (with --executor dask)")
    p.add_argument("--alpha", type=_probability, default=1e-3,
                   help="family-wise false-alarm budget per claim (default: %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _cmd_list(args: argparse.Namespace) -> int:
    claims = all_claims()
    if args.json:
        print(json.dumps({"claims": [{"id": c.id, "statement": c.statement,
                                      "rivals": [dataclasses.asdict(r) for r in c.rivals],
                                      "reference": c.reference} for c in claims]}, indent=1))
    else:
        for c in claims:
            print(f"{c.id:45s} {c.statement}")
    return 0


def _selected(args: argparse.Namespace) -> list | None:
    """The claims a run/calibrate command names, or None after a usage message (no claims, an unknown id or
    study, or --scheduler without the dask executor)."""
    if not args.ids and not args.all:
        print(f"gentheory {args.command}: name claim ids or studies, or pass --all", file=sys.stderr)
        return None
    if args.scheduler is not None and args.executor != "dask":
        print(f"gentheory {args.command}: --scheduler {args.scheduler} needs --executor dask "
              f"(got --executor {args.executor})", file=sys.stderr)
        return None
    try:
        return all_claims(None if args.all else args.ids)
    except KeyError as exc:  # an unknown id or study: a usage error, not a crash
        print(f"gentheory {args.command}: {exc.args[0]}", file=sys.stderr)
        return None


def _interrupted(store: ResultStore, claims: Sequence[Claim], scale: str) -> int:
    """One line on stderr after SIGINT/SIGTERM (what is stored, how to resume); the shell's exit status 130."""
    stored = sum(len(list(store.points_dir(c.id, scale).glob("*.json"))) for c in claims)
    print(f"gentheory: interrupted; {stored} points of the selected claims are stored in {store.root} (the points "
          "being computed were abandoned); the same command resumes from there", file=sys.stderr)
    return 130


def _cmd_run(args: argparse.Namespace) -> int:
    claims = _selected(args)
    if claims is None:
        return 2
    problem = _writable_directory(args.results, "--results")
    if problem:
        print(f"gentheory run: {problem}", file=sys.stderr)
        return 2
    store = ResultStore(args.results)
    reuse = reusable_stores(args.scale)
    if reuse and not args.fresh:
        print(f"gentheory run: current points of the shipped store {reuse[0]} are reused (--fresh recomputes them)",
              file=sys.stderr)
    try:
        with interrupts_raise():
            verdicts = run_claims(claims, scale=args.scale, store=store, executor=args.executor,
                                  workers=args.workers, scheduler=args.scheduler, base_seed=args.seed,
                                  fresh=args.fresh, alpha=args.alpha, progress=False if args.no_progress else None,
                                  reuse=reuse)
        write_reports(store, verdicts)
    except KeyboardInterrupt:
        return _interrupted(store, claims, args.scale)
    except OSError as exc:  # a write that failed (disk full, read-only) or a scheduler that does not answer
        return _os_error("run", exc)
    if args.json:
        print(json.dumps(to_jsonable(render_json(verdicts)), indent=1))
    else:
        for v in verdicts:
            print(v)
        print(f"report: {store.root / 'report.md'}")
    return 0 if all(v.status in SUCCESS for v in verdicts) else 1


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from gentheory.verify.calibration import calibrate, format_seed_ranges, render_calibration

    if args.merge is not None:
        return _merge_calibrations(args)
    if args.seeds is None:
        print("gentheory calibrate: --seeds N is required (or --merge FILE ...)", file=sys.stderr)
        return 2
    claims = _selected(args)
    if claims is None:
        return 2
    problem = _writable_directory(args.results, "--results")
    if problem:
        print(f"gentheory calibrate: {problem}", file=sys.stderr)
        return 2
    store = ResultStore(args.results)
    try:
        with interrupts_raise():
            rows = calibrate(claims, seeds=args.seeds, scale=args.scale, store=store, executor=args.executor,
                             workers=args.workers, scheduler=args.scheduler, alpha=args.alpha,
                             progress=False if args.no_progress else None, first_seed=args.first_seed,
                             stored_only=args.stored_only)
    except ValueError as exc:  # --stored-only with nothing stored
        print(f"gentheory calibrate: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return _interrupted(store, claims, args.scale)
    except OSError as exc:
        return _os_error("calibrate", exc)
    for r in rows:
        if r.seeds < args.seeds:
            print(f"gentheory calibrate: {r.claim}: {r.seeds} of {args.seeds} seeds have all their points stored "
                  f"(s in {format_seed_ranges(r.seed_ranges, ', ')}); assessed those only", file=sys.stderr)
    md = render_calibration(rows)
    try:
        store.write_text("calibration.md", md)
        store.write_text("calibration.json", json.dumps({"calibration": [r.to_dict() for r in rows]}, indent=1))
    except OSError as exc:
        return _os_error("calibrate", exc)
    print(json.dumps({"calibration": [r.to_dict() for r in rows]}, indent=1) if args.json else md)
    return 1 if any(r.verdict in ("MISCALIBRATED", "ERROR") for r in rows) else 0


def _merge_calibrations(args: argparse.Namespace) -> int:
    """``calibrate --merge``: pool per-seed records of disjoint batches; writes calibration_merged.md/.json to --results."""
    from gentheory.verify.calibration import CalibrationRow, merge_rows, render_calibration

    if args.ids or args.all or args.seeds is not None:
        print("gentheory calibrate --merge: pools stored batches; give no claim ids, --all or --seeds",
              file=sys.stderr)
        return 2
    rows = []
    for name in args.merge:
        try:
            doc = json.loads(Path(name).read_text())
            rows += [CalibrationRow.from_dict(d) for d in doc["calibration"]]
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            print(f"gentheory calibrate --merge: cannot read {name}: {exc}", file=sys.stderr)
            return 2
    try:
        rows = merge_rows(rows)
    except ValueError as exc:
        print(f"gentheory calibrate --merge: {exc}", file=sys.stderr)
        return 2
    store = ResultStore(args.results)
    md = render_calibration(rows)
    doc = json.dumps({"calibration": [r.to_dict() for r in rows]}, indent=1)
    store.write_text("calibration_merged.md", md)
    store.write_text("calibration_merged.json", doc)
    print(doc if args.json else md)
    return 1 if any(r.verdict in ("MISCALIBRATED", "ERROR") for r in rows) else 0


def _reading_store(args: argparse.Namespace) -> ShippedFallbackStore:
    """The results directory, falling back at paper scale to the current verdicts of the shipped store."""
    return ShippedFallbackStore(args.results, shipped_results_dir() if args.scale == "paper" else None)


def _shipped_note(store: ShippedFallbackStore, command: str) -> None:
    """One stderr line on the claims read from the shipped store, one on those whose shipped points are stale."""
    if store.used and store.shipped is not None:
        print(f"gentheory {command}: {len(store.used)} claims read from the shipped store {store.shipped.root}",
              file=sys.stderr)
    if store.stale:
        print(f"gentheory {command}: the shipped points of {', '.join(store.stale)} are stale (the code changed "
              f"since they were shipped); recompute them: {refresh_command(store.stale)}", file=sys.stderr)


def _stored_verdicts(args: argparse.Namespace, store: ShippedFallbackStore) -> list:
    out = []
    for cid in claim_ids():
        v = store.load_verdict(cid, args.scale)
        if v is not None:
            out.append(v)
    return out


def _cmd_report(args: argparse.Namespace) -> int:
    store = _reading_store(args)
    verdicts = _stored_verdicts(args, store)
    _shipped_note(store, "report")
    if not verdicts:
        print(f"no stored verdicts at scale {args.scale!r} in {args.results}; run `gentheory run --all` first",
              file=sys.stderr)
        return 1
    if args.html is not None:
        from gentheory.verify.report_html import write_html_report

        problem = _writable_directory(args.html, "--html")
        if problem:
            print(f"gentheory report: {problem}", file=sys.stderr)
            return 2
        try:
            page = write_html_report(verdicts, store, args.html, style=args.style)
        except OSError as exc:
            return _os_error("report", exc)
        print(f"HTML report: {page}", file=sys.stderr)
    print(json.dumps(to_jsonable(render_json(verdicts)), indent=1) if args.json else render_markdown(verdicts))
    return 0


def _cmd_figures(args: argparse.Namespace) -> int:
    if args.list:
        from gentheory.verify.figures import FIGURES

        for name, spec in sorted(FIGURES.items()):
            print(f"{name:32s} {', '.join(spec.claims) or '(theory only)'}")
        return 0
    problem = _writable_directory(args.out, "--out")
    if problem:
        print(f"gentheory figures: {problem}", file=sys.stderr)
        return 2
    store = _reading_store(args)
    try:
        paths = export_figures(store, args.out, scale=args.scale, style=args.style, formats=args.format,
                               names=args.only)
    except MissingResultsError as exc:
        _shipped_note(store, "figures")
        print(f"gentheory figures: {exc}", file=sys.stderr)
        return 1
    except KeyError as exc:  # --only names a figure that does not exist
        print(f"gentheory figures: {exc.args[0]}", file=sys.stderr)
        return 2
    except OSError as exc:
        return _os_error("figures", exc)
    _shipped_note(store, "figures")
    for p in paths:
        print(p)
    return 0


def _cmd_ship(args: argparse.Namespace) -> int:
    from gentheory.verify._storage import project_root
    from gentheory.verify.shipped import SHIPPED_DIRNAME, ship

    if not Path(args.source).is_dir():
        print(f"gentheory ship: results directory {args.source!r} does not exist", file=sys.stderr)
        return 2
    dest = args.to
    if dest is None:
        root = project_root()
        if root is None:
            print("gentheory ship: not inside a gentheory checkout; name the shipped store with --to DIR",
                  file=sys.stderr)
            return 2
        dest = str(root / SHIPPED_DIRNAME)
    problem = _writable_directory(dest, "--to")
    if problem:
        print(f"gentheory ship: {problem}", file=sys.stderr)
        return 2
    try:
        result = ship(args.source, dest)
    except ValueError as exc:  # over the size limit, or a manifest of another format
        print(f"gentheory ship: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        return _os_error("ship", exc)
    print(result.render())
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from gentheory.verify.calibration import compare_stores

    for d in (args.first, args.second):
        if not Path(d).is_dir():
            print(f"gentheory compare: results directory {d!r} does not exist", file=sys.stderr)
            return 2
    try:
        result = compare_stores(args.first, args.second, scale=args.scale)
    except ValueError as exc:  # a run stored twice, or a file that is no stored point
        print(f"gentheory compare: {exc}", file=sys.stderr)
        return 2
    if result.matched == 0 and not (result.only_in_first or result.only_in_second):
        print(f"gentheory compare: no stored points at scale {args.scale!r} in either directory", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(to_jsonable({**dataclasses.asdict(result), "identical": result.identical}), indent=1))
    else:
        print(result.render())
    return 0 if result.identical else 1


def _module_name(text: str) -> str:
    """argparse type: a dotted module name (imported, never evaluated)."""
    from gentheory.verify.claims import MODULE_NAME

    if not MODULE_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(f"--plugin {text!r} is not a module name (dotted Python identifiers)")
    return text


def _use_plugins(modules: Sequence[str]) -> None:
    """Add ``modules`` to ``$GENTHEORY_PLUGINS``, so this process and the workers it starts import them."""
    import os

    from gentheory.verify.claims import PLUGINS_ENV

    present = [m for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]
    os.environ[PLUGINS_ENV] = ",".join(dict.fromkeys([*present, *modules]))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "plugin", None):
        _use_plugins(args.plugin)
    if getattr(args, "results", "") is None:
        args.results = str(default_results_dir())
    commands = {"list": _cmd_list, "run": _cmd_run, "calibrate": _cmd_calibrate, "report": _cmd_report,
                "figures": _cmd_figures, "compare": _cmd_compare, "ship": _cmd_ship}
    try:
        return commands[args.command](args)
    except PluginError as exc:
        print(f"gentheory {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`gentheory report | head`): not an error of ours. Later writes (the interpreter's
        # final flush) go to /dev/null, so no second BrokenPipeError is reported at exit.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a writer killed by the signal


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
