POOLS = {}


def register_pool(name):
    def deco(cls):
        POOLS[name] = cls
        return cls

    return deco


def build_pool(name, *args, **kwargs):
    return POOLS[name](*args, **kwargs)
