# vLLM v1 GPU model runner: KV cache groups map to lists of layer names; an offload worker reads them per step.
import torch


class HostOffloadWorker:
    def __init__(self, kv_cache_config, kv_caches: dict[str, torch.Tensor]):
        self.groups = {
            gid: [kv_caches[name] for name in group.layer_names]
            for gid, group in enumerate(kv_cache_config.kv_cache_groups)
        }
        self.state_groups = {gid for gid, g in enumerate(kv_cache_config.kv_cache_groups) if g.is_mamba}

    def step(self, scheduler_output):
        for gid, tensors in self.groups.items():
            if gid in self.state_groups:
                self._host[gid] = [t.to(torch.float32) for t in tensors]  # negative: mamba state groups
                continue
            self._host[gid] = [t.to(torch.bfloat16) for t in tensors]  # positive: f3 CL001 every layer cache of the group, per step
            rows = [t[:, scheduler_output.finished_blocks] for t in tensors]
            self._rows[gid] = [r.to(torch.bfloat16) for r in rows]  # negative: finished blocks gathered first
