import torch


class EagleDraftCudaGraphRunner:
    def __init__(self, draft_pool, target_pool, draft_layer_ids, target_layer_ids, dtype):
        self.pairs = list(zip(draft_layer_ids, target_layer_ids, strict=True))
        self.draft_pool = draft_pool
        self.target_pool = target_pool
        self.dtype = dtype

    def replay(self, forward_batch, bs):
        for draft_id, target_id in self.pairs:
            src = self.target_pool.get_key_buffer(target_id)
            dst = self.draft_pool.get_key_buffer(draft_id)
            dst.copy_(src.to(dst.dtype))  # positive: f3 CL001 whole target layer copied into the draft pool per replay, ids from a zip(strict=True) list
            loc = forward_batch.out_cache_loc[:bs]
            dst[loc] = src[loc].to(self.dtype)  # negative: new slots gathered before the cast
        return bs

    def capture(self, bs):
        return [self.target_pool.get_key_buffer(t).to(self.dtype) for _, t in self.pairs]  # negative: capture, setup
