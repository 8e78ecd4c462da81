import torch


class GPUBlockPoolView:
    def __init__(self, kv_caches: dict, compute_dtype: torch.dtype):
        self.kv_caches = kv_caches
        self.compute_dtype = compute_dtype

    def dense(self, layer_name: str) -> torch.Tensor:
        return self.kv_caches[layer_name].to(self.compute_dtype)  # positive: f6 CL004 pool view accessor widening the whole layer

    def blocks(self, layer_name: str, block_ids) -> torch.Tensor:
        return self.kv_caches[layer_name][:, block_ids].to(self.compute_dtype)  # negative: blocks first


class OffloadingConnectorWorker:
    def __init__(self, view: GPUBlockPoolView):
        self.view = view

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        # note: per-step caller of the CL004 accessor
        return self.view.dense(layer_name), self.view.blocks(layer_name, attn_metadata.block_ids)
