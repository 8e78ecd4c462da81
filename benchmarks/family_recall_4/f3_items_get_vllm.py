"""A runner keeps kv caches in a dict by layer name: setdefault at bind time, items()/get per step."""
import torch


class ShadowKVRunner:
    def __init__(self, vllm_config, device):
        self.device = device
        self.layer_names: list[str] = []
        self.kv_caches: dict[str, torch.Tensor] = {}
        self.slot_tables: dict[str, torch.Tensor] = {}
        self.max_num_tokens = vllm_config.scheduler_config.max_num_batched_tokens

    def initialize_kv_cache_tensors(self, kv_cache_config):
        for spec in kv_cache_config.kv_cache_tensors:
            raw = torch.zeros(spec.size, dtype=torch.int8, device=self.device)
            for name in spec.shared_by:
                self.kv_caches.setdefault(name, raw.view(torch.float8_e4m3fn).view(2, -1, 16, 8, 128))
                self.layer_names.append(name)

    def _export_all(self):
        out = {}
        for name, cache in self.kv_caches.items():
            out[name] = cache.to(torch.bfloat16)  # positive: f3 CL001 items() loop converts every layer's whole cache
        return out

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        exported = self._export_all() if scheduler_output.export_kv else None
        first = self.kv_caches.get(self.layer_names[0])
        head = first.float()  # positive: f3 CL001 dict.get of a layer's whole cache
        tail = next(iter(self.kv_caches.values())).half()  # positive: f3 CL001 first value of the dict of whole caches
        slots = self.slot_tables.setdefault("decode", torch.zeros(self.max_num_tokens, dtype=torch.int32))
        slots = slots.to(torch.int64)  # negative: slot table from setdefault
        return exported, head, tail, slots


def build_slot_tables(names, max_tokens, device):
    tables = {}
    for n in names:
        tables.setdefault(n, torch.zeros(max_tokens, dtype=torch.int32, device=device))
    return {n: t.to(torch.int64) for n, t in tables.items()}  # negative: slot tables, not caches
