import torch


class _LatentReader:
    """Wraps one layer of the MLA pool: [slots, 1, kv_lora_rank + qk_rope_head_dim]."""

    def __init__(self, buf, kv_lora_rank, dtype):
        self.buf = buf
        self.rank = kv_lora_rank
        self.dtype = dtype

    def nope(self):
        return self.buf[..., : self.rank].to(self.dtype)  # positive: f1 CL001 latent part of every slot (last-dim selection)

    def rope_rows(self, loc):
        return self.buf[loc, :, self.rank :].to(self.dtype)  # negative: rows of the batch first


class AscendMLABackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.native_int8_mla = False  # the NPU MLA operator here takes fp16/bf16 caches only

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        reader = _LatentReader(pool.get_key_buffer(layer.layer_id), self.kv_lora_rank, q.dtype)
        k_nope = reader.nope()
        k_pe_new = reader.rope_rows(forward_batch.out_cache_loc)
        packed = reader.buf.to(q.dtype)  # positive: f1 CL001 the reader's whole buffer
        return self._npu_mla(q, packed, k_nope, k_pe_new, forward_batch)
