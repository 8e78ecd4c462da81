import torch


def snapshot(buf):
    return buf.to(torch.float16).cpu()  # positive: f7 CL001 whole manager buffer from attention.forward


def snapshot_scale(scale):
    return scale.to(torch.float16).cpu()  # negative: scale tensor
