import torch


class SinkRotator:
    """StreamingLLM-style helper: re-applies RoPE to cached keys after the window shifts."""

    def __init__(self, kv_pool, rotary_emb):
        self.kv_pool = kv_pool
        self.rotary_emb = rotary_emb

    def keys_for(self, layer_id):
        return self.kv_pool.get_key_buffer(layer_id)

    def rerotate(self, layer_id, shift_positions):
        keys = self.keys_for(layer_id).to(torch.float32)  # positive: f1 CL001 the rotator's method returns the whole key layer, widened every step
        cos, sin = self.rotary_emb.cos_sin_cache[shift_positions].to(torch.float32).chunk(2, dim=-1)  # negative: rope table rows, not the cache
        return keys, cos, sin


class StreamingFlashInferBackend:
    def __init__(self, model_runner):
        self.rotator = SinkRotator(model_runner.token_to_kv_pool, model_runner.model.rotary_emb)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys, cos, sin = self.rotator.rerotate(layer.layer_id, forward_batch.positions)
        sink = self.rotator.keys_for(layer.layer_id)[: layer.num_sink_tokens].float()  # negative: a few sink rows selected first
        return keys, sink, cos, sin
