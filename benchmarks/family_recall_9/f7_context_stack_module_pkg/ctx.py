import contextlib

_POOLS = []
_LENS = []


@contextlib.contextmanager
def using(pool, seq_lens):
    _POOLS.append(pool)
    _LENS.append(seq_lens)
    try:
        yield pool
    finally:
        _POOLS.pop()
        _LENS.pop()


def current():
    return _POOLS[-1]


def current_lens():
    return _LENS[-1]
