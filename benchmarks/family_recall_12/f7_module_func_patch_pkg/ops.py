import torch


def dequant(cache, dtype):
    raise NotImplementedError("patched at import")


def scale_to(scale, dtype):
    raise NotImplementedError("patched at import")


def block_table_i32(bt):
    return bt.to(torch.int32)  # negative: block table


def noop(x):
    return x
