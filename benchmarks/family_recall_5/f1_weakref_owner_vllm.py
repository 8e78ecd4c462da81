"""vLLM-style worker helper that keeps only a weak reference to the runner."""

import weakref

import torch


class KVSnapshotter:
    """Holds the model runner weakly and reads its kv_caches on each step."""

    def __init__(self, runner):
        self._runner_ref = weakref.ref(runner)
        self._meta_ref = weakref.ref(runner.input_batch)

    def _runner(self):
        r = self._runner_ref()
        if r is None:
            raise RuntimeError("runner was collected")
        return r

    def execute_model(self, scheduler_output):
        runner = self._runner()
        out = []
        for idx in scheduler_output.layers_to_export:
            blob = runner.kv_caches[idx]
            out.append(blob.to(torch.float32))  # positive: f1 CL001 whole per-layer kv_caches entry reached through a weakref
        positions = self._meta_ref().positions.to(torch.int64)  # negative: per-batch positions tensor
        return out, positions


class WeakPoolProxyImpl:
    def __init__(self, pool):
        self.pool = weakref.proxy(pool)
        self.block_table = torch.zeros(256, 64, dtype=torch.int32)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        plane = self.pool.key_caches[layer.layer_idx]
        dense = plane.to(query.dtype)  # positive: f1 CL001 pool reached through weakref.proxy, whole layer plane cast
        bt = self.block_table.to(torch.int64)  # negative: block table
        q32 = query.to(torch.float32)  # negative: batch query
        torch.ops._C.paged_attention(output, q32, dense, bt)
        return output
