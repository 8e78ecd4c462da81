import torch


class XPUTorchNativeMLABackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.pool_size = model_runner.max_total_num_tokens + model_runner.page_size
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        whole = buf.narrow(0, 0, self.pool_size).to(q.dtype)  # positive: f5 CL001 narrow over the full pool length keeps every slot
        used = int(forward_batch.seq_lens_sum)
        head = buf.narrow(0, 0, used).to(q.dtype)  # negative: a prefix of the pool
        latent = buf.narrow(-1, 0, self.kv_lora_rank).to(q.dtype)  # positive: f5 CL001 last-dim part, every slot
        return whole, head, latent

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k = k.to(q.dtype)  # negative: new tokens
        return torch.cat([q, k], dim=-1)
