"""sglang torch-native FP8 fallback: k/v layers interleaved in one flat list, indexed 2*j and 2*j + 1."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class InterleavedKVIndex:
    def __init__(self, pool, start_layer, num_layers):
        self.start = start_layer
        self.slots = [None] * (2 * num_layers)
        for i in range(num_layers):
            self.slots[2 * i] = pool.k_buffer[i].view(pool.dtype)
            self.slots[2 * i + 1] = pool.v_buffer[i].view(pool.dtype)


class TorchNativeFp8FallbackBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.index = InterleavedKVIndex(pool, pool.start_layer, pool.layer_num)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        j = layer.layer_id - self.index.start
        k_all = self.index.slots[2 * j].to(q.dtype)  # positive: f3 CL001 whole key layer from the interleaved list
        v_all = self.index.slots[2 * j + 1].to(q.dtype)  # positive: f3 CL001 whole value layer
        req = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices]
        k_req = self.index.slots[2 * j][req].to(q.dtype)  # negative: rows of the requests
        return torch.nn.functional.scaled_dot_product_attention(q, k_all, v_all), k_req
