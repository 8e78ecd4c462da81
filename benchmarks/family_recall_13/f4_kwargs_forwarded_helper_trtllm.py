import torch


def _materialize(*, kv_buffer, dtype, **unused):
    return kv_buffer.to(dtype)  # positive: f4 CL001 keyword argument from forward is the whole layer buffer


def _materialize_rows(*, kv_buffer, rows, dtype):
    return kv_buffer[rows].to(dtype)  # negative: rows gathered before the cast


class MLAGenerationFallback:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, compressed_kv, k_pe, metadata, **kwargs):
        opts = dict(dtype=self.dtype, kv_buffer=metadata.kv_cache_manager.get_buffers(self.layer_idx))
        latent = _materialize(**opts, note="gen")
        rows = metadata.kv_cache_block_offsets[0, : metadata.num_seqs].flatten()
        some = _materialize_rows(kv_buffer=opts["kv_buffer"], rows=rows, dtype=self.dtype)
        return self._attend(q, latent, some)

    def _attend(self, q, a, b):
        return q
