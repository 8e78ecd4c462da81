import torch


class MLAContextChunks:
    def __init__(self, layer_idx, kv_lora_rank=512, chunk_size=8192):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank
        self.chunk_size = chunk_size

    def forward(self, q, compressed_kv, k_pe, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if metadata.num_contexts == 0:
            return self._generation(q, buf, metadata)
        outs = []
        for c in range(metadata.num_ctx_chunks):
            idx = metadata.chunked_cache_indices[c]
            chunk = buf.view(-1, buf.shape[-1])[idx].to(q.dtype)  # negative: the chunk's tokens gathered first
            outs.append(chunk)
        new = compressed_kv.to(q.dtype)  # negative: the step's latents
        return outs, new

    def _generation(self, q, buf, metadata):
        if metadata.use_fp8_mla_generation:
            return q.to(torch.float8_e4m3fn), buf  # negative: the step's q quantized
        latent = buf.view(-1, buf.shape[-1])
        return latent[:, : self.kv_lora_rank].to(q.dtype)  # positive: f6 CL001 latent part of every token of the layer in the non-FP8 generation path
