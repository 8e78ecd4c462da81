import torch


class ChainedReader:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.attn_backend.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        up = kb.to(q.dtype)  # positive: f1 CL001 pool reached through the batch's attn_backend
        r2t = forward_batch.req_to_token_pool.req_to_token
        tok = r2t[forward_batch.req_pool_indices].to(torch.int64)  # negative: request rows
        return up, tok

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        runner = forward_batch.attn_backend.model_runner
        vb = runner.token_to_kv_pool.get_value_buffer(layer.layer_id)
        return vb.float()  # positive: f1 CL001 runner reached from the backend on the batch
