import threading

_tls = threading.local()


def set_manager(manager):
    _tls.manager = manager


def manager():
    return getattr(_tls, "manager", None)
