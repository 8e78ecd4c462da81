import torch


class LayerwiseTransferQueue:
    """PD prefill sender: layers become ready one by one during forward_extend."""

    def __init__(self, token_to_kv_pool, wire_dtype=torch.bfloat16):
        self.pool = token_to_kv_pool
        self.wire_dtype = wire_dtype
        self.pending = []

    def mark_ready(self, layer_id):
        self.pending.append(layer_id)

    def drain(self, out_cache_loc):
        staged = []
        while self.pending:
            lid = self.pending.pop(0)
            k_buf, v_buf = self.pool.get_kv_buffer(lid)
            staged.append(k_buf.to(self.wire_dtype))  # positive: f3 CL001 whole key pool of a popped layer
            staged.append(v_buf[out_cache_loc].to(self.wire_dtype))  # negative: the batch's rows
        return staged


class DisaggPrefillBackend:
    def __init__(self, model_runner):
        self.queue = LayerwiseTransferQueue(model_runner.token_to_kv_pool)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.queue.mark_ready(layer.layer_id)
        return self.queue.drain(forward_batch.out_cache_loc)
