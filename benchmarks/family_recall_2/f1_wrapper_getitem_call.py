# Wrapper objects that expose layers through __getitem__, __call__ and properties.
import torch

from sglang.srt.layers.quantization.kvfp4_tensor import FP4MXBlock16KVQuantizeUtil


class LayerIndexedCache:
    """cache[layer_id] -> whole key buffer of that layer; cache(layer_id) -> value buffer."""

    def __init__(self, pool):
        self.pool = pool

    def __getitem__(self, layer_id: int) -> torch.Tensor:
        return self.pool.get_key_buffer(layer_id)

    def __call__(self, layer_id: int) -> torch.Tensor:
        return self.pool.get_value_buffer(layer_id)


class SlotRows:
    """rows[loc] -> only the slots in loc."""

    def __init__(self, buf: torch.Tensor):
        self.buf = buf

    def __getitem__(self, loc: torch.Tensor) -> torch.Tensor:
        return self.buf[loc]


class FP8MLALayerView:
    def __init__(self, pool, layer_id: int, kv_lora_rank: int):
        self._pool = pool
        self._layer_id = layer_id
        self._rank = kv_lora_rank

    @property
    def latent(self) -> torch.Tensor:
        return self._pool.get_key_buffer(self._layer_id)

    @property
    def nope(self) -> torch.Tensor:
        return self.latent[..., : self._rank]

    @property
    def num_slots(self) -> int:
        return self.latent.shape[0]


class WrapperFlashInferMLABackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.q_dtype = model_runner.dtype
        self.layers = LayerIndexedCache(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all = self.layers[layer.layer_id].to(q.dtype)  # positive: f1 CL001 __getitem__ returns the whole key pool
        v_all = self.layers(layer.layer_id).to(q.dtype)  # positive: f1 CL001 __call__ returns the whole value pool
        rows = SlotRows(forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id))
        picked = rows[forward_batch.out_cache_loc].to(q.dtype)  # negative: SlotRows.__getitem__ gathers slots
        return k_all, v_all, picked

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        view = FP8MLALayerView(forward_batch.token_to_kv_pool, layer.layer_id, self.kv_lora_rank)
        latent_bf16 = view.latent.to(self.q_dtype)  # positive: f1 CL001 property latent is the whole MLA pool
        nope_bf16 = view.nope.bfloat16()  # positive: f1 CL001 property nope is a last-dim slice of the whole pool
        n = torch.tensor(view.num_slots).to(torch.int64)  # negative: a scalar count, not a buffer
        scales = forward_batch.token_to_kv_pool.k_scale_buffer[layer.layer_id]
        deq = FP4MXBlock16KVQuantizeUtil.batched_dequantize(view.latent.view(torch.uint8), scales)  # positive: f1 CL004 property latent handed whole to the FP4 dequant
        return latent_bf16, nope_bf16, n, deq
