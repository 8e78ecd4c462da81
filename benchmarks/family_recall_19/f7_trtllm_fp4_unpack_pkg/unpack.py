import torch

_E2M1 = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
                      -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


def unpack_layer(buf: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    raw = buf.view(torch.uint8)
    lo = raw.bitwise_and(0xF).long()  # positive: f7 CL001 low nibbles of the whole packed layer widened to int64
    hi = raw.bitwise_right_shift(4).long()  # positive: f7 CL001 high nibbles of the whole packed layer
    lut = _E2M1.to(dtype)  # negative: lookup table
    return torch.stack([lut[lo], lut[hi]], dim=-1).flatten(-2)


def unpack_blocks(buf, block_ids, dtype):
    raw = buf.view(torch.uint8)[block_ids]
    return torch.stack([_E2M1[(raw & 0xF).long()], _E2M1[(raw >> 4).long()]], -1).to(dtype)  # negative: gathered blocks
