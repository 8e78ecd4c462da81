import torch


class LayerCacheView:
    def __init__(self, k_cache, v_cache):
        self.k_cache = k_cache
        self.v_cache = v_cache


class WideLayerCacheView(LayerCacheView):
    """Used when the device has no int8/fp8 paged kernel: attribute reads come back widened."""

    _WIDE = frozenset({"k_cache", "v_cache"})

    def __getattribute__(self, name):
        value = super().__getattribute__(name)
        if name in type(self)._WIDE:
            return value.to(torch.float16)  # positive: f2 CL001 the subclass's __getattribute__ widens the whole cache plane on each read
        return value


class FallbackAttention(torch.nn.Module):
    def __init__(self, has_quant_kernel):
        super().__init__()
        self.view_cls = LayerCacheView if has_quant_kernel else WideLayerCacheView

    def forward(self, query, key, value, past_key_value, attn_metadata):
        view = self.view_cls(*past_key_value)
        k, v = view.k_cache, view.v_cache
        rows = past_key_value[0][attn_metadata.block_offsets].to(torch.float16)  # negative: blocks gathered before the cast
        return k, v, rows, query.float()  # negative: the query
