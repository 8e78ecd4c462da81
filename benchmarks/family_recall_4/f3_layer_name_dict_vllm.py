"""A model runner keeps caches in dicts keyed by layer name and by parsed layer index."""
import torch

from vllm.model_executor.models.utils import extract_layer_index


class NamedCacheRunner:
    def __init__(self, vllm_config, device):
        self.device = device
        self.attn_layer_names: list[str] = []
        self.kv_caches: list[torch.Tensor] = []
        self.block_tables: dict[str, torch.Tensor] = {}
        self.by_name: dict[str, torch.Tensor] = {}
        self.by_index: dict[int, torch.Tensor] = {}

    def bind(self, kv_caches: dict[str, torch.Tensor]):
        self.attn_layer_names = sorted(kv_caches, key=extract_layer_index)
        self.kv_caches = [kv_caches[n] for n in self.attn_layer_names]
        self.by_name = dict(zip(self.attn_layer_names, self.kv_caches))
        self.by_index = {extract_layer_index(n): c for n, c in kv_caches.items()}
        for n in self.attn_layer_names:
            self.block_tables[n] = torch.zeros((256, 64), dtype=torch.int32, device=self.device)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        name = self.attn_layer_names[scheduler_output.probe_layer]
        t = self.by_name[name].to(torch.float32)  # positive: f3 CL001 dict(zip(names, caches)) by layer name
        blob = None
        for idx in sorted(self.by_index):
            if idx == scheduler_output.probe_layer:
                blob = self.by_index[idx]
                blob = blob.to(dtype=torch.bfloat16)  # positive: f3 CL001 dict by parsed layer index
        bt = self.block_tables[name].to(torch.int64)  # negative: block table by layer name
        picked = self.by_name[name][:, bt[0]].to(torch.float32)  # negative: blocks gathered first
        return t, blob, picked

    def _block_table_for(self, name, num_reqs):
        return self.block_tables[name][:num_reqs].to(torch.int32)  # negative: block table rows

    def kv_bytes(self):
        return {n: c.numel() * c.element_size() for n, c in self.by_name.items()}
