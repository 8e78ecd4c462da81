"""Generators over the target manager's layer buffers."""


def dense_each(mgr, layer_ids, dtype):
    for i in layer_ids:
        yield mgr.get_buffers(i).to(dtype)  # positive: f7 CL001 whole target layer per yielded item


def blocks_each(mgr, layer_ids, block_ids, dtype):
    for i in layer_ids:
        yield mgr.get_buffers(i)[block_ids].to(dtype)  # negative: blocks of the batch


def scale_each(scales, dtype):
    for s in scales:
        yield s.to(dtype)  # negative: scales
