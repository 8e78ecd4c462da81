import torch


class TargetVerifier:
    def __init__(self, dtype):
        self.dtype = dtype

    def dense_layer(self, gpu_cache, layer_idx):
        k_cache, v_cache = gpu_cache[layer_idx]
        return k_cache.to(self.dtype), v_cache.to(self.dtype)  # positive: f7 CL001 engine passes the target cache engine's gpu_cache each step

    def accepted_blocks(self, gpu_cache, layer_idx, block_offsets):
        k_cache, _ = gpu_cache[layer_idx]
        return k_cache[block_offsets].to(self.dtype)  # negative: block gather

    def key_norms(self, gpu_cache):
        return [k.float().norm() for k, _ in gpu_cache]  # positive: f7 CL001 engine passes gpu_cache; each whole key cache widened

    def logits_to_probs(self, logits):
        return torch.softmax(logits.float(), dim=-1)  # negative: logits
