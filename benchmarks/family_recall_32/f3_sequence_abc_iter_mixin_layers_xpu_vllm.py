"""vLLM Intel XPU: a collections.abc.Sequence of widened layers; iteration comes from the Sequence mixin __iter__."""
from collections.abc import Sequence

import torch


class _DenseLayers(Sequence):
    def __init__(self, kv_caches, dtype):
        self._kv = kv_caches
        self._dtype = dtype

    def __len__(self):
        return len(self._kv)

    def __getitem__(self, i):
        return self._kv[i].to(self._dtype)  # positive: f3 CL001 whole layer [2, blocks, ...] on every item access

    def first_block(self, i, block_table):
        return self._kv[i][:, block_table[:, 0]].to(self._dtype)  # negative: first-block gather


class XPUModelRunnerFallback:
    def __init__(self, kv_caches, model_dtype):
        self.layers = _DenseLayers(kv_caches, model_dtype)

    def execute_model(self, scheduler_output, attn_metadata):
        dense = list(self.layers)
        firsts = [self.layers.first_block(i, attn_metadata.block_table) for i in range(len(self.layers))]
        positions = attn_metadata.positions.to("xpu")  # negative: positions device move
        return dense, firsts, positions
