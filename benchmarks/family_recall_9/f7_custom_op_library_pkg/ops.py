import torch

_DTYPES = (torch.bfloat16, torch.float16)


@torch.library.custom_op("corpus9::upcast_layer", mutates_args=())
def upcast_layer(buf: torch.Tensor, dtype_code: int) -> torch.Tensor:
    return buf.to(_DTYPES[dtype_code])  # positive: f7 CL001 custom op only ever given whole manager buffers


@upcast_layer.register_fake
def _(buf, dtype_code):
    return torch.empty_like(buf, dtype=_DTYPES[dtype_code])  # negative: fake (meta) allocation
