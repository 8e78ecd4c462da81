import functools


def traced(name):
    def deco(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            return fn(*args, **kwargs)
        inner.trace_name = name
        return inner
    return deco
