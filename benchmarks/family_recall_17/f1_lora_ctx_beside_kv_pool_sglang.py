"""sglang: a LoRA-enabled torch backend reaches the adapter memory pool and the KV pool
through one per-batch context object built in init_forward_metadata."""
from dataclasses import dataclass

import torch


@dataclass
class LoRAKVContext:
    lora_mem_pool: object
    kv_pool: object
    out_cache_loc: torch.Tensor


class LoRATorchNativeBackend:
    def __init__(self, model_runner):
        self.lora_manager = model_runner.lora_manager
        self.fp8_decode_kernel = False  # no FP8-KV decode kernel on this path
        self.ctx = None

    def init_forward_metadata(self, forward_batch):
        self.ctx = LoRAKVContext(
            lora_mem_pool=self.lora_manager.memory_pool,
            kv_pool=forward_batch.token_to_kv_pool,
            out_cache_loc=forward_batch.out_cache_loc,
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ctx = self.ctx
        lora_b = ctx.lora_mem_pool.get_tensor("qkv_proj", layer.layer_id, "B")
        lora_b = lora_b.to(q.dtype)  # negative: adapter weights in the LoRA pool, not the KV pool
        if save_kv_cache:
            ctx.kv_pool.set_kv_buffer(layer, ctx.out_cache_loc, k, v)
        k_buf, v_buf = ctx.kv_pool.get_kv_buffer(layer.layer_id)
        new_k = k_buf[ctx.out_cache_loc].to(q.dtype)  # negative: only this step's rows
        if not self.fp8_decode_kernel:
            k_buf = k_buf.to(q.dtype)  # positive: f1 CL001 whole key layer of the pool reached through the context
            v_buf = v_buf.to(q.dtype)  # positive: f1 CL001 whole value layer of the pool reached through the context
        return self._sdpa(q, k_buf, v_buf, new_k, lora_b, forward_batch)

    def _sdpa(self, q, k_buf, v_buf, new_k, lora_b, forward_batch):
        return q
