# TensorRT-LLM MTP verify reference: the worker keeps the target planes plane-major, planes[K] the keys
# and planes[V] the values of every layer, filled once from get_buffers in __init__.
import torch

K, V = 0, 1


class MTPVerifyReference:
    def __init__(self, kv_cache_manager, num_layers):
        self.planes = ([], [])
        for i in range(num_layers):
            buf = kv_cache_manager.get_buffers(i)
            self.planes[K].append(buf[:, 0])
            self.planes[V].append(buf[:, 1])

    def forward(self, q, layer_idx, attn_metadata, spec_metadata):
        k = self.planes[K][layer_idx].to(q.dtype)  # positive: f3 CL001 whole key plane of the layer
        v = self.planes[V][layer_idx].to(q.dtype)  # positive: f3 CL001 whole value plane of the layer
        accepted = spec_metadata.num_accepted_tokens.to(torch.int64)  # negative: counts
        last = attn_metadata.block_ids[:, -1]
        tail_k = self.planes[K][layer_idx][last].to(q.dtype)  # negative: last block of each request
        return self._reference(q, k, v, tail_k, accepted)

    def _reference(self, q, k, v, tail_k, accepted):
        scores = torch.einsum("thd,bshd->thbs", q, k)
        return scores, v, tail_k, accepted
