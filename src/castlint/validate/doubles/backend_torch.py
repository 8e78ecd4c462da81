"""The torch a backend runs on: what the doubles build their tensors with.

The doubles never import torch at module level, so castlint's tests run them on the
pure-Python fake torch (tests/faketorch) as `castlint validate` runs them on real torch.
"""

from __future__ import annotations

import importlib
import sys


def current_torch():
    """The module under `torch` in sys.modules (the fake torch while castlint's tests run a
    backend on it, real torch in validate), imported when nothing is there yet."""
    return sys.modules.get("torch") or importlib.import_module("torch")
