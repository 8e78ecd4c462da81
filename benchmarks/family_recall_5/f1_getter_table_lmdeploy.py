"""Bound pool accessors kept in a dict of callables."""

import torch


class CacheEngineView:
    def __init__(self, cache_engine):
        self.engine = cache_engine

    def key_of(self, layer_idx):
        return self.engine.gpu_cache[layer_idx][0]

    def value_of(self, layer_idx):
        return self.engine.gpu_cache[layer_idx][1]


class TableAttention:
    def __init__(self, cache_engine, block_size):
        view = CacheEngineView(cache_engine)
        self._get = {"k": view.key_of, "v": view.value_of}
        self._small = {"q_len": lambda m: m.q_seqlens, "offs": lambda m: m.block_offsets}
        self.block_size = block_size

    def forward(self, query, key, value, attn_metadata, layer_idx):
        lanes = {}
        for name, fn in self._get.items():
            lanes[name] = fn(layer_idx)
        kf = lanes["k"].to(torch.float32)  # positive: f1 CL001 k cache from a bound accessor kept in a dict of getters
        vf = self._get["v"](layer_idx).to(torch.float32)  # positive: f1 CL001 v cache through the same getter table, called inline
        ql = self._small["q_len"](attn_metadata).to(torch.int64)  # negative: per-batch q lengths from the other table
        offs = self._small["offs"](attn_metadata).long()  # negative: block offsets
        return torch.ops.lmdeploy.fill_and_attend(query.float(), kf, vf, ql, offs)  # negative: batch query
