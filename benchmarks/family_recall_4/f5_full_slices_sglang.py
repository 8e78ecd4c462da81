"""Slices that select everything: [:], [..., :], [:, :, :], [0:n] and narrow over the full size."""
import torch


class FullSliceBackend:
    def __init__(self, model_runner):
        self.head_dim = model_runner.model_config.head_dim
        self.kernel = model_runner.attn_kernels.extend

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        src = pool.get_key_buffer(layer.layer_id)
        a = src[:].to(q.dtype)  # positive: f5 CL001 [:] keeps every slot
        b = pool.get_value_buffer(layer.layer_id)[..., :].half()  # positive: f5 CL001 [..., :] keeps every slot
        c = src[:, :, :].bfloat16()  # positive: f5 CL001 [:, :, :] keeps every slot
        n = src.shape[0]
        d = src[0:n].to(q.dtype)  # positive: f5 CL001 [0:shape[0]] is the whole buffer
        e = src.narrow(-1, 0, src.size(-1)).float()  # positive: f5 CL001 narrow over the full last dim
        start = int(forward_batch.out_cache_loc[0])
        w = src.narrow(0, start, forward_batch.extend_num_tokens).float()  # negative: window of the step's contiguous slots
        qq = q[:, :, :].float()  # negative: batch q
        return self.kernel(q, a, b, c, d, e, w, qq)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        src = pool.get_key_buffer(layer.layer_id)
        bs = forward_batch.batch_size
        head = src[:bs].to(q.dtype)  # negative: the first bs slots, not the pool
        tail = src[forward_batch.out_cache_loc, :, :].to(q.dtype)  # negative: indexed by locations
        lens = forward_batch.seq_lens[:].to(torch.int32)  # negative: [:] of the sequence lengths
        return self.kernel(q, head, tail, lens)


def set_kv(pool, layer, loc, k, v):
    k_new = k[:, :, :].to(pool.dtype)  # negative: batch k written to the pool
    v_new = v[..., :].to(pool.dtype)  # negative: batch v written to the pool
    pool.set_kv_buffer(layer, loc, k_new, v_new)
    return loc


def full_view(buf):
    return buf[...]
