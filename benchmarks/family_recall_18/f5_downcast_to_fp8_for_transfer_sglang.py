"""sglang-style PD prefill sender quantizing a bf16 pool's layers to FP8 for the wire."""
import torch


class Fp8WireStager:
    def __init__(self, token_to_kv_pool):
        self.pool = token_to_kv_pool
        self.wire = {}

    def stage_layer(self, layer_id, out_cache_loc):
        k = self.pool.get_key_buffer(layer_id)
        scale = k.abs().amax().clamp(min=1e-6) / 448.0  # negative: a reduction, no dtype change
        self.wire[("k", layer_id)] = (k / scale).to(torch.float8_e4m3fn)  # positive: f5 CL001 whole bf16 key layer downcast to FP8
        self.wire[("v", layer_id)] = self.pool.get_value_buffer(layer_id).to(torch.float8_e4m3fn)  # positive: f5 CL001 whole value layer downcast
        self.wire[("rows", layer_id)] = k[out_cache_loc].to(torch.float8_e4m3fn)  # negative: rows of this batch
        self.wire[("scale", layer_id)] = scale.to(torch.float32)  # negative: scalar scale


class DisaggPrefillBackend:
    def __init__(self, model_runner):
        self.stager = Fp8WireStager(model_runner.token_to_kv_pool)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        out = self._prefill(q, k, v, layer, forward_batch)
        self.stager.stage_layer(layer.layer_id, forward_batch.out_cache_loc)
        return out

    def _prefill(self, q, k, v, layer, forward_batch):
        return q
