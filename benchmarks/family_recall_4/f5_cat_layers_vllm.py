"""torch.cat / stack / concat over whole caches, across layers and across planes."""
import torch


class CatLayersRunner:
    def __init__(self, vllm_config, device):
        self.device = device
        self.kv_caches: list[torch.Tensor] = []
        self.seq_lens = torch.zeros(vllm_config.scheduler_config.max_num_seqs, dtype=torch.int32, device=device)

    def _snapshot(self):
        return torch.cat(self.kv_caches, dim=0).to(torch.bfloat16)  # positive: f5 CL001 cat of every layer's whole cache then cast

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        snap = self._snapshot() if scheduler_output.snapshot_kv else None
        lens = torch.cat([self.seq_lens, self.seq_lens.new_zeros(1)]).to(torch.int64)  # negative: cat of small length vectors
        return snap, lens


class StackPlanesImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        bt = attn_metadata.block_table[0]
        kv2 = torch.stack([kv_cache[0], kv_cache[1]], dim=0).float()  # positive: f5 CL001 stack of both whole planes
        cc = torch.concat((kv_cache[0], kv_cache[1]), dim=-1).half()  # positive: f5 CL001 torch.concat of both whole planes
        sel = torch.cat([kv_cache[0][bt], kv_cache[1][bt]]).float()  # negative: cat of gathered blocks
        kvq = torch.cat([key, value], dim=-1).to(kv_cache.dtype)  # negative: batch key/value
        return self._attend(query, kv2, cc, sel, kvq, output)

    def _attend(self, query, *tensors):
        return torch.empty_like(query)


def merge_slot_mappings(metadatas):
    return torch.cat([m.slot_mapping for m in metadatas]).to(torch.int64)  # negative: cat of slot mappings


def cache_bytes(kv_caches):
    return sum(c.numel() * c.element_size() for c in kv_caches)
