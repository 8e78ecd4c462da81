import torch


class _StaticInputs:
    def __init__(self, kv_cache, slot_mapping, block_table):
        self.kv_cache = kv_cache
        self.slot_mapping = slot_mapping
        self.block_table = block_table


class FullDecodeGraphWrapper:
    """Replays one captured decode graph; fp8 layer caches are widened into static bf16 copies."""

    def __init__(self, runnable, kv_caches, dtype):
        self.runnable = runnable
        self.dtype = dtype
        self.static_kv = [torch.empty_like(kv, dtype=dtype) for kv in kv_caches]  # negative: allocation at init
        self.static_meta = [{} for _ in kv_caches]
        self.graph = None

    def __call__(self, per_layer_inputs, positions):
        for i, inp in enumerate(per_layer_inputs):
            for name, value in vars(inp).items():
                if name == "kv_cache":
                    self.static_kv[i].copy_(value.to(self.dtype))  # positive: f3 CL001 whole layer cache found by walking vars() of the record, every replay
                else:
                    self.static_meta[i][name].copy_(value.to(torch.int64))  # negative: slot mapping / block table ids
        self.static_positions.copy_(positions)
        self.graph.replay()
        return self.output
