"""to_compute is declared in dispatch.py; views.py registers the LayerView overload; backend.py calls it."""
from .dispatch import to_compute
from . import views
from .backend import DispatchBackend

__all__ = ["to_compute", "views", "DispatchBackend"]


def registered_types():
    return list(to_compute.registry)


def has_view():
    return views.LayerView in to_compute.registry


def name():
    return "singledispatch"


def version():
    return "0"
