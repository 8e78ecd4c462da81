"""lmdeploy Ascend graph runner for an EAGLE3 draft step: target layers copied into static fp16 caches before each replay."""
import torch

from lmdeploy.pytorch.backends.dlinfer.ascend.graph_runner import AscendGraphRunner


class AscendEagle3DraftGraphRunner(AscendGraphRunner):
    def __init__(self, model, model_config, cache_config, backend_config, device, target_cache_engine, target_layer_ids):
        super().__init__(model, model_config, cache_config, backend_config, device)
        self.target_cache_engine = target_cache_engine
        self.target_layer_ids = target_layer_ids

    def capture(self, **kwargs):
        gpu = self.target_cache_engine.gpu_cache
        self.static_target_kv = [tuple(torch.empty_like(t, dtype=torch.float16) for t in gpu[i]) for i in self.target_layer_ids]  # negative: allocation at capture
        self.static_recent = torch.empty_like(kwargs["past_key_values"][0][0][kwargs["block_offsets"][:, -1]], dtype=torch.float16)  # negative: allocation at capture (last blocks)
        return super().capture(**kwargs)

    def __call__(self, **kwargs):
        gpu = self.target_cache_engine.gpu_cache
        for i, (sk, sv) in enumerate(self.static_target_kv):
            tk, tv = gpu[self.target_layer_ids[i]]
            sk.copy_(tk.to(sk.dtype))  # positive: f6 CL001 whole target key cache, per replay
            sv.copy_(tv.to(sv.dtype))  # positive: f6 CL001 whole target value cache
        own_k = kwargs["past_key_values"][0][0]
        recent = own_k[kwargs["block_offsets"][:, -1]].to(torch.float16)  # negative: last block of each draft sequence
        self.static_recent.copy_(recent)
        return super().__call__(**kwargs)
