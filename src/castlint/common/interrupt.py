"""How a run ends on SIGINT/SIGTERM: one exception the CLI turns into exit 2 and one line.

`Interrupted` is a BaseException but not a KeyboardInterrupt, so that nothing
between the signal and castlint.cli.main (click and typer turn a
KeyboardInterrupt into `Aborted!` or exit 130; `except Exception` blocks) can
swallow it or change the exit code. The write in progress still unwinds through
castlint.fixes.write, which holds the signals for the few microseconds of a
write and removes its temp file.
"""

from __future__ import annotations

import signal
from typing import Callable, Dict

# the signals that end a run; SIGHUP only where nobody chose to ignore it (nohup)
STOP_SIGNALS = tuple(
    s for s in (getattr(signal, "SIGTERM", None), signal.SIGINT, getattr(signal, "SIGHUP", None)) if s is not None
)


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP reached castlint (or killed one of its workers)."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signum)
        self.signum = signum


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def install() -> Dict[int, Callable]:
    """Make SIGINT, SIGTERM and SIGHUP raise Interrupted in the main thread; returns the
    handlers they had (for restore). A signal the caller ignores (SIG_IGN: nohup, a
    background job) stays ignored. Does nothing outside the main thread."""
    previous = {}
    for signum in STOP_SIGNALS:
        try:
            current = signal.getsignal(signum)
            if current is signal.SIG_IGN:
                continue
            previous[signum] = signal.signal(signum, _raise_interrupted)
        except (ValueError, OSError, TypeError):  # not the main thread, or not settable here
            continue
    return previous


def restore(previous: Dict[int, Callable]) -> None:
    for signum, handler in previous.items():
        try:
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        except (ValueError, OSError, TypeError):
            pass
