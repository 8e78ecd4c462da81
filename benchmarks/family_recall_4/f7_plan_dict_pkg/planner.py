import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class MLAPlanner:
    def __init__(self, device, backend="fa3"):
        ws = torch.empty(128 * 1024 * 1024, dtype=torch.uint8, device=device)
        self.wrapper = BatchMLAPagedAttentionWrapper(ws, backend=backend)
