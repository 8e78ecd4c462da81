import torch


class RequestKVView:
    """Per-request view of the token pool, built each decode step."""

    def __init__(self, req_to_token_pool, token_to_kv_pool):
        self.req_to_token_pool = req_to_token_pool
        self.kv_pool = token_to_kv_pool

    def rows(self, req_pool_idx, seq_len):
        return self.req_to_token_pool.req_to_token[req_pool_idx, :seq_len]

    def keys_for(self, layer_id, req_pool_idx, seq_len, dtype):
        loc = self.rows(req_pool_idx, seq_len)
        return self.kv_pool.get_key_buffer(layer_id)[loc].to(dtype)  # negative: gathered rows of one request

    def whole_key(self, layer_id, dtype):
        return self.kv_pool.get_key_buffer(layer_id).to(dtype)  # positive: f1 CL001 whole layer of the pool via the view, called from forward_decode


class TorchDecodeBackend:
    def __init__(self, model_runner):
        self.view = RequestKVView(model_runner.req_to_token_pool, model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch):
        if forward_batch.batch_size == 1:
            keys = self.view.keys_for(layer.layer_id, forward_batch.req_pool_indices[0], forward_batch.seq_lens[0], q.dtype)
            return torch.softmax(q @ keys.T, dim=-1)
        keys = self.view.whole_key(layer.layer_id, q.dtype)
        return torch.softmax(q @ keys.T, dim=-1)
