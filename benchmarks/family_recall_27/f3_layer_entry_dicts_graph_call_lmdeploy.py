import torch


class CUDAGraphRunner:
    def __init__(self, model, cache_engine, model_config, backend_config):
        self.model = model
        self.compute_dtype = model_config.dtype
        self.entries = [
            {"k": k, "v": v, "k_scale": getattr(cache_engine, "k_scales", [None])[0]}
            for k, v in cache_engine.gpu_cache
        ]
        self.static = [{"k": torch.empty_like(e["k"], dtype=self.compute_dtype)} for e in self.entries]  # negative: allocation at init

    def __call__(self, **kwargs):
        attn_metadata = kwargs["attn_metadata"]
        for i, entry in enumerate(self.entries):
            self.static[i]["k"].copy_(entry["k"].to(self.compute_dtype))  # positive: f3 CL001 whole key cache held in a per-layer dict entry, every replay
            self.static[i]["v"] = entry["v"].to(self.compute_dtype)  # positive: f3 CL001 whole value cache
            if entry["k_scale"] is not None:
                self.static[i]["k_scale"] = entry["k_scale"].to(torch.float32)  # negative: the scale
        self.input_buffers["block_offsets"].copy_(attn_metadata.block_offsets.to(torch.int32))  # negative: block offsets
        self._graph.replay()
        return self.output_buffers["logits"]
