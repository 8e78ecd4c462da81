"""Pre-attention hooks: hooks.py holds the list, plugins.py appends at import, backend.py runs them."""
from . import hooks
from . import plugins
from .backend import HookedMLABackend

__all__ = ["hooks", "plugins", "HookedMLABackend"]


def installed():
    return len(hooks.PRE_ATTN)


def describe():
    return [h.__name__ for h in hooks.PRE_ATTN]


def clear():
    hooks.PRE_ATTN.clear()


def version():
    return "0"
