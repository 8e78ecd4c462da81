# sglang FlashInfer MLA CUDA graph runner on a GPU without FP8-KV MLA: it keeps weak references to the
# pool's per-layer uint8 arenas and widens each layer into a static bf16 input at every replay.
import weakref

import torch


class MLAStaticKVRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype
        self.refs = [weakref.ref(buf) for buf in self.pool.kv_buffer]
        self.static_kv = []

    def capture(self, bs):
        for ref in self.refs:
            arena = ref()
            self.static_kv.append(torch.empty(arena.shape, dtype=self.model_dtype, device=arena.device))  # negative: allocation at capture

    def replay(self, forward_batch):
        for ref, dst in zip(self.refs, self.static_kv):
            buf = ref()
            if buf is None:
                continue
            dst.copy_(buf.view(self.pool.dtype).to(self.model_dtype))  # positive: f3 CL001 the whole per-layer arena, reinterpreted and widened per replay
        loc = forward_batch.out_cache_loc
        rows = self.refs[0]().view(self.pool.dtype)[loc].to(self.model_dtype)  # negative: rows of the batch
        return self.graph.replay(rows)
