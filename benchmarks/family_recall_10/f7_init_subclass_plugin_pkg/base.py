class AttnImplBase:
    registry = {}

    def __init_subclass__(cls, kind=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if kind is not None:
            AttnImplBase.registry[kind] = cls

    def prepare(self, k_cache, dtype):
        return k_cache
