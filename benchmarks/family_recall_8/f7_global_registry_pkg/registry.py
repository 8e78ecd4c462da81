_POOLS = {}


def register_pool(name, pool):
    _POOLS[name] = pool


def lookup(name):
    return _POOLS[name]
