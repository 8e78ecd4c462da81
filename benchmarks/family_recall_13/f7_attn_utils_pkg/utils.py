import torch


def upcast_layer_kv(pool, layer_id, dtype):
    k = pool.get_key_buffer(layer_id)
    v = pool.get_value_buffer(layer_id)
    k = k.to(dtype)  # positive: f7 CL001 helper in utils.py, every caller passes the pool and a layer id
    v = v.to(dtype)  # positive: f7 CL001 helper in utils.py, every caller passes the pool and a layer id
    return k, v


def gather_layer_rows(pool, layer_id, loc, dtype):
    k = pool.get_key_buffer(layer_id)[loc]
    return k.to(dtype)  # negative: the given rows gathered before the cast


def pad_indices(indices, multiple):
    pad = (-indices.numel()) % multiple
    return torch.nn.functional.pad(indices, (0, pad)).to(torch.int32)  # negative: index table
