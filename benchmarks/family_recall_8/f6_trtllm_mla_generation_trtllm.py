import torch


class MLAGenerationLite:
    def __init__(self, layer_idx, kv_lora_rank=512, rope_dim=64):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank
        self.rope_dim = rope_dim

    def forward_generation(self, q, compressed_kv, k_pe, metadata):
        return self.forward(q, compressed_kv, k_pe, metadata)

    def forward(self, q, compressed_kv, k_pe, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        latent = buf.squeeze(1)[..., : self.kv_lora_rank]
        lat = latent.to(q.dtype)  # positive: f6 CL001 TRT-LLM MLA latent of every token
        whole = buf.to(torch.bfloat16)  # positive: f6 CL001 whole MLA layer
        ckv = compressed_kv.to(q.dtype)  # negative: the step's compressed kv
        ids = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        idx = torch.tensor(ids, dtype=torch.int32)  # negative: cache indices
        return lat, whole, ckv, idx
