"""f3: the runner's kv_caches dict turned into list(values()) / tuple(values()) and indexed."""
import torch


class ValuesRunner:
    def __init__(self, vllm_config):
        self.kv_caches: dict[str, torch.Tensor] = {}
        self.model_dtype = torch.bfloat16

    def initialize_kv_cache(self, kv_cache_config):
        for i in range(kv_cache_config.num_layers):
            self.kv_caches[f"model.layers.{i}.self_attn.attn"] = torch.zeros(
                (2, kv_cache_config.num_blocks, 16, 8, 128), dtype=torch.float8_e4m3fn, device="cuda"
            )

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        ordered = list(self.kv_caches.values())
        first = ordered[0].to(self.model_dtype)  # positive: f3 CL001 list(values())[0] is a whole layer cache
        last = tuple(self.kv_caches.values())[-1].float()  # positive: f3 CL001 tuple(values())[-1]
        names = list(self.kv_caches.keys())
        n_layers = torch.tensor(len(ordered), dtype=torch.int32)  # negative: a count
        nbytes = sum(t.numel() * t.element_size() for t in ordered)  # negative: sizes only
        req_ids = scheduler_output.req_ids
        return first, last, names, nbytes, req_ids, n_layers
