import torch

WIRE_DTYPE = torch.float16


def to_wire(plane):
    return plane.to(WIRE_DTYPE)  # positive: f7 CL001 every caller (connector.save_kv_layer) passes a whole K or V plane


def ids_to_wire(ids):
    return torch.as_tensor(ids).to(torch.int32)  # negative: block ids
