from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class TransferSlice:
    layer_id: int
    buf: torch.Tensor
    rows: Optional[torch.Tensor] = None


class KVStagingSender:
    """PD prefill side: when the decode peer uses another page size it asks for whole layers."""

    def __init__(self, pool, wire_dtype, peer_page_size, page_size):
        self.pool = pool
        self.wire_dtype = wire_dtype
        self.whole_layers = peer_page_size != page_size

    def send(self, req):
        slices = [
            TransferSlice(i, self.pool.get_key_buffer(i), None if self.whole_layers else req.kv_indices)
            for i in range(self.pool.start_layer, self.pool.end_layer)
        ]
        for s in slices:
            if s.rows is None:
                staged = s.buf.to(self.wire_dtype)  # positive: f3 CL001 whole layer carried by a TransferSlice record
            else:
                staged = s.buf[s.rows].to(self.wire_dtype)  # negative: the request's rows
            self._post(req.room, s.layer_id, staged)
        self._post_meta(req.room, req.kv_indices.to(torch.int64))  # negative: indices
