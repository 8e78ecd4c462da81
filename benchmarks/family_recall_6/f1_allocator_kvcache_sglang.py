"""A draft worker shares the target's pools through get_memory_pool() and allocator.get_kvcache()."""
import torch


class TargetWorker:
    def __init__(self, model_runner):
        self.model_runner = model_runner

    def get_memory_pool(self):
        return (
            self.model_runner.req_to_token_pool,
            self.model_runner.token_to_kv_pool_allocator,
        )


class DraftRecomputeHelper:
    def __init__(self, target_worker, draft_dtype=torch.bfloat16):
        self.req_to_token_pool, self.allocator = target_worker.get_memory_pool()
        self.draft_dtype = draft_dtype

    def forward(self, batch, layer_ids):
        kv = self.allocator.get_kvcache()
        out = []
        for lid in layer_ids:
            out.append(kv.get_key_buffer(lid).to(self.draft_dtype))  # positive: f1 CL001 whole target key buffer, reached through the allocator
        (_, alloc) = (self.req_to_token_pool, self.allocator)
        v0 = alloc.get_kvcache().get_value_buffer(layer_ids[0]).bfloat16()  # positive: f1 CL001 whole value buffer via the same allocator
        rows = self.req_to_token_pool.req_to_token[batch.req_pool_indices].to(torch.int64)  # negative: index table rows
        loc = batch.out_cache_loc
        fresh = kv.get_key_buffer(layer_ids[0])[loc].to(self.draft_dtype)  # negative: gather-then-cast
        kv.set_kv_buffer(batch.layer, loc, batch.k.to(self.draft_dtype), batch.v.to(self.draft_dtype))  # negative: writer of the step's new k/v
        win = kv.get_key_buffer(layer_ids[0])[: batch.seq_lens_sum].to(self.draft_dtype)  # negative: a token window
        return out, v0, rows, fresh
