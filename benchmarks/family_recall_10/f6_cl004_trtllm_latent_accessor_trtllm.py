"""A TRT-LLM KVCacheManager subclass with a get_latent accessor that converts (CL004)."""
import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class MLALatentManager(KVCacheManager):
    def set_compute_dtype(self, dtype):
        self.compute_dtype = dtype

    def get_latent(self, layer_idx):
        buf = self.get_buffers(layer_idx)
        return buf.squeeze(1)[..., :512].to(self.compute_dtype)  # positive: f6 CL004 accessor returns the converted latent of every block

    def get_seq_lens(self, request_ids):
        lens = torch.tensor([self.get_num_tokens(r) for r in request_ids])
        return lens.to(torch.int32)  # negative: lengths


class LatentUserAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        lat = attn_metadata.kv_cache_manager.get_latent(self.layer_idx)  # note: per-step caller of the CL004 accessor
        return lat, q.float()  # negative: queries
