from typing import Generic, TypeVar

P = TypeVar("P")


class Holder(Generic[P]):
    def __init__(self, pool: P):
        self.pool = pool

    def layer(self, layer_id):
        return self.pool.get_key_buffer(layer_id)
