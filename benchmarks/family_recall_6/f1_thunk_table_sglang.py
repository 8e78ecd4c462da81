"""Per-layer thunks (lambdas with bound defaults) built once, invoked every step."""
import torch


class FlashAttentionLikeBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.num_layers = model_runner.model_config.num_hidden_layers
        self._keys = [lambda i=i: pool.get_key_buffer(i) for i in range(self.num_layers)]
        self._vals = [lambda i=i: pool.get_value_buffer(i) for i in range(self.num_layers)]
        self._seq_lens = lambda fb: fb.seq_lens
        self.req_to_token = model_runner.req_to_token_pool.req_to_token

    def forward_extend(self, q, k, v, layer, forward_batch):
        t = self._keys[layer.layer_id]()
        key_all = t.to(q.dtype)  # positive: f1 CL001 the thunk returns the layer's whole key buffer
        val_all = self._vals[layer.layer_id]().to(q.dtype)  # positive: f1 CL001 whole value buffer through the thunk
        lens = self._seq_lens(forward_batch).to(torch.int32)  # negative: sequence lengths
        table = self.req_to_token[forward_batch.req_pool_indices].to(torch.int32)  # negative: index table rows
        t8 = t.view(torch.uint8)  # negative: reinterpret
        return key_all, val_all, lens, table
