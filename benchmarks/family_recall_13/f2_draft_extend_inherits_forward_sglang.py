import torch


class FlashAttentionBackend:
    def _kv_pair(self, layer, forward_batch):
        loc = forward_batch.out_cache_loc
        k = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return k[loc], k[loc]

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_src, v_src = self._kv_pair(layer, forward_batch)
        k_c = k_src.to(q.dtype)  # positive: f2 CL001 the draft subclass's _kv_pair hands whole layers to the inherited forward
        v_c = v_src.to(q.dtype)  # positive: f2 CL001 the draft subclass's _kv_pair hands whole layers to the inherited forward
        return self._varlen(q, k_c, v_c)

    def _varlen(self, q, k, v):
        return q


class DraftExtendBackend(FlashAttentionBackend):
    """EAGLE draft extend: attends over the full target pool of the layer."""

    def __init__(self, topk, speculative_num_steps):
        self.topk = topk
        self.speculative_num_steps = speculative_num_steps

    def _kv_pair(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)

    def init_forward_metadata(self, forward_batch):
        self.positions = forward_batch.positions.to(torch.int32)  # negative: positions of the step
