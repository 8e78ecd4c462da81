"""The manager's primary pool indexed by layer column: [:, layer] keeps every block."""
import torch


class TrtllmFallbackMLA:
    def __init__(self, layer_idx, is_mla):
        self.layer_idx = layer_idx
        self.is_mla = is_mla

    def forward(self, q, compressed_kv, k_pe, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        pool = mgr.get_unique_primary_pool()
        layer_off = mgr.layer_offsets[self.layer_idx]
        if self.is_mla:
            latent = pool[:, layer_off].to(q.dtype)  # positive: f5 CL001 every block of this layer's column
        else:
            latent = pool[:, layer_off, 0].to(q.dtype)  # positive: f5 CL001 key half of every block
        blocks = metadata.kv_cache_block_offsets[0, : metadata.num_seqs].flatten()
        rows = pool[blocks, layer_off].to(q.dtype)  # negative: gathered blocks
        head = pool[: metadata.num_contexts, layer_off].to(q.dtype)  # negative: a batch-sized prefix
        return self._mla(q, latent, rows, head, metadata)
