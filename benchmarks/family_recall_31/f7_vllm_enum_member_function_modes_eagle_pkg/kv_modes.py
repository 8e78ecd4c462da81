"""Target KV read modes for the EAGLE proposer: enum members whose values are functions (enum.member, 3.11)."""
import enum

import torch


def _dense(kv_cache: torch.Tensor, dtype, block_table=None):
    return kv_cache.to(dtype)  # positive: f7 CL001 whole target layer cache (both planes), reached as KVMode.DENSE.value from proposer.propose


def _blocks(kv_cache: torch.Tensor, dtype, block_table=None):
    return kv_cache[:, block_table].to(dtype)  # negative: the requests' blocks ([2, num_blocks, ...])


class KVMode(enum.Enum):
    DENSE = enum.member(_dense)
    BLOCKS = enum.member(_blocks)
