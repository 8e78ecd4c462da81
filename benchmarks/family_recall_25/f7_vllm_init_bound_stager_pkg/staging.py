import torch


def stage_layer(kv_layer: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return kv_layer.to(dtype).cpu()  # positive: f7 CL001 whole layer cache handed over by the connector's save_kv_layer


def stage_slots(kv_layer: torch.Tensor, slots: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return kv_layer.flatten(1, 2)[:, slots].to(dtype).cpu()  # negative: slots selected before the cast


def stage_scales(scale: torch.Tensor) -> torch.Tensor:
    return scale.to(torch.float32)  # negative: scale
