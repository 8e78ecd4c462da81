"""A decode helper built from the scheduler's (req_to_token_pool, allocator) pair."""
import torch


class DecodeKVView:
    def __init__(self, scheduler):
        self.req_to_token_pool = scheduler.req_to_token_pool
        self.allocator = scheduler.token_to_kv_pool_allocator

    def token_indices(self, req_pool_indices, seq_lens):
        rows = self.req_to_token_pool.req_to_token[req_pool_indices, : seq_lens.max()]
        return rows.to(torch.int64)  # negative: req_to_token rows of the batch, an index table

    def layer_kv(self, layer_id):
        kv_pool = self.allocator.get_kvcache()
        return kv_pool.get_key_buffer(layer_id), kv_pool.get_value_buffer(layer_id)


class TorchFallbackDecodeBackend:
    def __init__(self, model_runner, scheduler):
        self.view = DecodeKVView(scheduler)
        self.dtype = model_runner.dtype
        self.gather_first = model_runner.server_args.enable_gather_first_decode

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self.view.layer_kv(layer.layer_id)
        if self.gather_first:
            idx = self.view.token_indices(forward_batch.req_pool_indices, forward_batch.seq_lens)
            k_rows = k_buf[idx.flatten()].to(self.dtype)  # negative: gathered rows of the batch
            v_rows = v_buf[idx.flatten()].to(self.dtype)  # negative: gathered rows of the batch
            return self._attend_rows(q, k_rows, v_rows, forward_batch)
        k_all = k_buf.to(self.dtype)  # positive: f1 CL001 whole key layer of the allocator's kv cache
        v_all = v_buf.to(self.dtype)  # positive: f1 CL001 whole value layer of the allocator's kv cache
        return self._attend_paged(q.to(self.dtype), k_all, v_all, layer, forward_batch)  # negative: q is the step's queries
