"""The traced process's side of `castlint trace -- CMD` (see _bootstrap/sitecustomize.py).

The tracer starts when the process imports torch (a process that never does
pays nothing), watches every thread, and at exit writes its sites to
$CASTLINT_TRACE_OUT/<pid>.json for the castlint process to report.
"""

from __future__ import annotations

import atexit
import importlib.abc
import importlib.util
import json
import os
import sys

_STATE = {}


def _start() -> None:
    if "tracer" in _STATE:
        return
    from castlint.trace.runtime import Tracer

    rules = [p for p in os.environ.get("CASTLINT_TRACE_RULES", "").split(os.pathsep) if p]
    skip = [p for p in os.environ.get("CASTLINT_TRACE_SKIP", "").split(os.pathsep) if p]
    tracer = Tracer(os.environ.get("CASTLINT_TRACE_THRESHOLD") or None, extra_rules=rules, skip=skip, all_threads=True)
    tracer.start()
    _STATE["tracer"] = tracer


def _write() -> None:
    tracer = _STATE.get("tracer")
    out = os.environ.get("CASTLINT_TRACE_OUT")
    if tracer is None or not out:
        return
    tracer.stop()
    data = tracer.to_json()
    data["pid"] = os.getpid()
    tmp = os.path.join(out, f".{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.replace(tmp, os.path.join(out, f"{os.getpid()}.json"))


class _TorchHook(importlib.abc.MetaPathFinder):
    """Starts the tracer right after `import torch` has run."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None:
            return spec
        original = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return original.create_module(spec)

            def exec_module(self, module):
                original.exec_module(module)
                module.__loader__ = original
                if module.__spec__ is not None:
                    module.__spec__.loader = original
                _start()

        spec.loader = Loader()
        return spec


def install() -> None:
    atexit.register(_write)
    if "torch" in sys.modules:
        _start()
    else:
        sys.meta_path.insert(0, _TorchHook())
