import torch


class TorchNativeDecodeBackend:
    def __init__(self, model_runner):
        self.scaling = model_runner.model_config.scaling

    def forward_decode(self, q, k, v, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        scores = torch.einsum("bhd,nhd->bhn", q.float(), k_buf.float())  # positive: f5 CL001 whole key buffer widened inside einsum
        probs = torch.softmax(scores * self.scaling, dim=-1).to(q.dtype)  # negative: scores, not the pool
        out = torch.einsum("bhn,nhd->bhd", probs, v_buf.to(q.dtype))  # positive: f5 CL001 whole value buffer
        return out

    def forward_extend(self, q, k, v, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        k_rows = pool.get_key_buffer(layer.layer_id)[loc]
        s = torch.einsum("thd,shd->ths", q.float(), k_rows.float())  # negative: gathered rows
        q32 = q.float()  # negative: query
        return s, q32
