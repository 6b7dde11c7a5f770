"""Start-up of a pool worker: imports only the standard library, so it runs before any heavy import."""
from __future__ import annotations

import ctypes
import signal

__all__ = ["init_worker"]


def _die_with_parent() -> None:
    """Ask Linux to SIGTERM this worker when its parent dies (prctl PR_SET_PDEATHSIG), so killing
    ``gentheory run`` never leaves orphaned workers computing; a no-op on other systems.

    A parent that died while this process was starting (before the prctl) sends no signal; then the parent pid
    multiprocessing recorded is no longer this process's parent, and the worker exits at once."""
    import multiprocessing
    import os

    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid != os.getppid():
        os._exit(1)


def init_worker() -> None:
    """Pool initializer: the parent-death signal first, then SIGINT ignored (Ctrl-C reaches the whole process
    group; the parent alone decides, and terminates the workers), then BLAS pinned to one thread per worker."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
