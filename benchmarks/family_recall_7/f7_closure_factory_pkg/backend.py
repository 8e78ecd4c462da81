from .factory import make_reader, make_row_reader
from .pool import ClosurePool


class ClosureBackend:
    def __init__(self, pool: ClosurePool, dtype):
        self.read = make_reader(pool)
        self.read_rows = make_row_reader(pool)
        self.dtype = dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        dense = self.read(layer.layer_id).to(self.dtype)  # positive: f7 CL001 closure from factory.py returns the whole layer
        rows = self.read_rows(layer.layer_id, forward_batch.out_cache_loc).to(self.dtype)  # negative: rows of this step
        return dense, rows
