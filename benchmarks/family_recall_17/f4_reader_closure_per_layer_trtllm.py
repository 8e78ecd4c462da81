"""TensorRT-LLM MLA generation on parts without an FP8 MLA kernel: a method returns two
reader closures over the layer buffer; forward calls both."""
import torch


class MLAGenerationNoFp8:
    def __init__(self, layer_idx, kv_lora_rank=512):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank

    def _latent_readers(self, mgr):
        buf = mgr.get_buffers(self.layer_idx)

        def read_all(dtype):
            return buf.to(dtype)  # positive: f4 CL001 the closure's buffer is the whole layer

        def read_blocks(dtype, blocks):
            return buf[blocks].to(dtype)  # negative: gathered blocks

        return read_all, read_blocks

    def forward(self, q, metadata):
        read_all, read_blocks = self._latent_readers(metadata.kv_cache_manager)
        latent = read_all(q.dtype)
        anchor = read_blocks(q.dtype, metadata.kv_cache_block_offsets[0, :, 0])
        return q, latent[..., : self.kv_lora_rank], anchor
