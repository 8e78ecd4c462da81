import torch


class MLAKVSenderStaging:
    """Prefill-side sender for PD disaggregation when the decode side stores bf16 and prefill FP8."""

    def __init__(self, kv_args, pool, decode_dtype):
        self.kv_args = kv_args
        self.pool = pool
        self.decode_dtype = decode_dtype

    def send(self, layer_ids, prefill_kv_indices, dst_ptrs):
        staged = []
        for lid in layer_ids:
            src = self.pool.get_key_buffer(lid)
            if src.dtype != self.decode_dtype:
                staged.append(src.to(self.decode_dtype)[prefill_kv_indices])  # positive: f6 CL001 cast first, index after: the whole layer is converted per send
            else:
                staged.append(src[prefill_kv_indices])
        rows = [self.pool.get_key_buffer(l)[prefill_kv_indices].to(self.decode_dtype) for l in layer_ids]  # negative: rows gathered first
        ptrs = torch.tensor(dst_ptrs, dtype=torch.uint64)  # negative: pointer table
        return staged, rows, ptrs
