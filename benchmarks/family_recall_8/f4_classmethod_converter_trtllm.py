import torch


class Converter:
    target = torch.bfloat16

    @classmethod
    def dense(cls, buf):
        return buf.to(cls.target)  # positive: f4 CL001 classmethod only given get_buffers results

    @staticmethod
    def ids(blocks):
        return torch.as_tensor(blocks, dtype=torch.int32)  # negative: block ids


class HalfConverter(Converter):
    target = torch.float16


class ClsAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        self.mgr = kv_cache_manager
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        a = Converter.dense(self.mgr.get_buffers(self.layer_idx))
        b = HalfConverter.dense(self.mgr.get_buffers(self.layer_idx))
        c = Converter.ids(self.mgr.get_block_ids_per_seq(metadata.request_ids))
        return a, b, c
