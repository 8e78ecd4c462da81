import torch


class AttnRecord:
    def __init__(self, k_cache, v_cache, k_scale=None):
        self.k_cache = k_cache
        self.v_cache = v_cache
        self.k_scale = k_scale


class StepRecorder:
    def __init__(self, dtype=torch.float16):
        self.dtype = dtype

    def record(self, rec: AttnRecord):
        if (k := rec.k_cache).dtype != self.dtype:
            return k.to(self.dtype), rec.v_cache  # positive: f1 CL001 whole key cache carried by the record, widened
        if (s := rec.k_scale) is not None:
            return s.to(self.dtype), rec.v_cache  # negative: scale
        return rec.k_cache.to(self.dtype), rec.v_cache  # negative: dtype already equal here


class PagedAttention(torch.nn.Module):
    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def forward(self, query, k_cache, v_cache, k_scale):
        self.recorder.record(AttnRecord(k_cache, v_cache, k_scale))
        return query.to(k_scale.dtype)  # negative: query
