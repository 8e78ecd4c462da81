"""Conversions handed to a ThreadPoolExecutor: submit(torch.Tensor.float, k_cache), submit(lambda)."""
from concurrent.futures import ThreadPoolExecutor

import torch


class ExecutorAttention:
    def __init__(self):
        self.pool = ThreadPoolExecutor(max_workers=2)

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        fk = self.pool.submit(torch.Tensor.float, k_cache)  # positive: f4 CL001 whole K cache converted on a worker thread
        fv = self.pool.submit(lambda: v_cache.to(query.dtype))  # positive: f4 CL001 whole V cache converted in a submitted lambda
        fo = self.pool.submit(torch.Tensor.long, attn_metadata.block_offsets)  # negative: block offsets
        fs = self.pool.submit(lambda: k_scales_zeros.to(query.dtype))  # negative: scales/zeros
        return fk.result(), fv.result(), fo.result(), fs.result()
