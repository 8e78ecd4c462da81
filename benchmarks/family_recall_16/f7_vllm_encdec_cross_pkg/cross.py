import torch


class CrossCacheReader:
    def __init__(self, compute_dtype=torch.float16):
        self.compute_dtype = compute_dtype

    def dense(self, cross_cache):
        k, v = cross_cache.unbind(0)
        return k.to(self.compute_dtype), v.to(self.compute_dtype)  # positive: f7 CL001 both whole cross planes, one finding

    def slots(self, cross_cache, slot_mapping):
        k = cross_cache[0].flatten(0, 1)[slot_mapping]
        return k.to(self.compute_dtype)  # negative: encoder slots only

    def value_heads(self, cross_cache, head):
        return cross_cache[1][..., head, :].to(self.compute_dtype)  # positive: f7 CL001 one head of every block keeps every slot
