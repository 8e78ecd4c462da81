import enum

import torch


class WireLayout(enum.Enum):
    FLAT = "flat"
    BLOCKS = "blocks"

    def encode(self, kv_layer: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        if self is WireLayout.FLAT:
            return kv_layer.to(dtype).flatten(1, 2)  # positive: f7 CL001 whole layer handed in by the connector
        return kv_layer

    def encode_blocks(self, kv_layer: torch.Tensor, block_ids, dtype: torch.dtype) -> torch.Tensor:
        return kv_layer[:, block_ids].to(dtype)  # negative: blocks selected before the cast
