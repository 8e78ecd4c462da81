import torch


class CacheLayout:
    @classmethod
    def split(cls, kv_cache):
        return kv_cache.unbind(0)

    @classmethod
    def dense(cls, kv_cache):
        return cls.split(kv_cache)


class BF16CacheLayout(CacheLayout):
    dtype = torch.bfloat16

    @classmethod
    def dense(cls, kv_cache):
        key_cache, value_cache = super().dense(kv_cache)
        return key_cache.to(cls.dtype), value_cache.to(cls.dtype)  # positive: f2 CL001 both planes of the layer


class TorchSDPAImpl:
    layout = BF16CacheLayout

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = self.layout.dense(kv_cache)
        sliced = kv_cache[:, attn_metadata.block_table[0]].to(torch.bfloat16)  # negative: one request's blocks
        k_new = key.to(torch.bfloat16)  # negative: new-token keys
        scale = layer._k_scale.to(torch.bfloat16)  # negative: scale
        return key_cache, value_cache, sliced, k_new, scale
