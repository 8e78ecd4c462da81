"""f1: the pool reached through the ForwardBatch object handed to the backend (forward_batch.token_to_kv_pool)."""
import torch


class BatchCarriedBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        keys = pool.get_key_buffer(layer.layer_id).to(self.dtype)  # positive: f1 CL001 pool carried by the forward batch
        table = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices].to(torch.int64)  # negative: token-table rows
        return keys, table

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        vals = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id).float()  # positive: f1 CL001 inline through the batch
        new_v = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc].float()  # negative: the step's rows
        return vals, new_v
