import functools

_holder = {}


def set_pool(pool):
    _holder["pool"] = pool
    get_pool.cache_clear()


@functools.lru_cache(maxsize=None)
def get_pool():
    return _holder["pool"]
