"""Readers built by a factory function keyed on the attention kind."""

import torch


class _DenseReader:
    def __init__(self, pool):
        self.pool = pool

    def fetch(self, layer_id):
        return self.pool.get_key_buffer(layer_id)


class _SplitReader:
    def __init__(self, pool):
        self.pool = pool

    def fetch(self, layer_id):
        return self.pool.get_kv_buffer(layer_id)[0]


class _StepReader:
    def __init__(self, pool, loc):
        self.pool, self.loc = pool, loc

    def fetch(self, layer_id):
        return self.pool.get_key_buffer(layer_id).index_select(0, self.loc)


_READERS = {"mla": _DenseReader, "mha": _SplitReader}


def build_reader(kind, pool):
    return _READERS[kind](pool)


class FactoryReaderBackend:
    def __init__(self, model_runner, kind="mla"):
        self.reader = build_reader(kind, model_runner.token_to_kv_pool)
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        x = self.reader.fetch(layer.layer_id)
        xd = x.to(q.dtype)  # positive: f1 CL001 reader from a factory registry returns the whole key buffer
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode(q, xd, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        r = _StepReader(self.pool, forward_batch.out_cache_loc)
        y = r.fetch(layer.layer_id).to(q.dtype)  # negative: this reader gathers the step's rows first
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.extend(q, y, o, forward_batch.extend_seq_lens)
        return o
