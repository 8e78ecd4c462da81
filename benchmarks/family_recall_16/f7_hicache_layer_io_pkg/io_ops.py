import torch


def widen_layer_for_host(device_pool, layer_id, host_dtype):
    k = device_pool.get_key_buffer(layer_id)
    v = device_pool.get_value_buffer(layer_id)
    return k.to(host_dtype), v.to(host_dtype)  # positive: f7 CL001 whole device layer, called from the controller per step


def widen_rows_for_host(device_pool, layer_id, indices, host_dtype):
    k = device_pool.get_key_buffer(layer_id)[indices]
    return k.to(host_dtype)  # negative: evicted rows only


def checksum(host_tensor):
    return host_tensor.to(torch.float64).sum()  # negative: host tensor, not the device pool
