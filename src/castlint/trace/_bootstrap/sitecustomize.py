"""Loaded at start-up by every Python process `castlint trace -- CMD` starts (it is first on PYTHONPATH).

Runs the sitecustomize it shadows, if any, then arms the tracer: it starts when
the process imports torch, and writes what it saw at exit (castlint.trace._boot).
"""

import os
import sys


def _chain():
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is not None and spec.loader is not None and os.path.abspath(spec.origin or "") != os.path.abspath(__file__):
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


try:
    _chain()
finally:
    if os.environ.get("CASTLINT_TRACE_OUT"):
        try:
            from castlint.trace._boot import install

            install()
        except Exception as exc:  # noqa: BLE001 - never break the traced program
            sys.stderr.write(f"castlint trace: not tracing process {os.getpid()}: {type(exc).__name__}: {exc}\n")
