import torch

POOL = None
REQ_LENS = torch.zeros(256, dtype=torch.int32)
