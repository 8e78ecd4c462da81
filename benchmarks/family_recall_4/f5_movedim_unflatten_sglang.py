"""movedim, unflatten, torch.reshape and view(-1, d) of whole per-layer buffers."""
import torch


class MovedimBackend:
    def __init__(self, model_runner):
        self.head_dim = model_runner.model_config.head_dim
        self.fp8 = torch.float8_e4m3fn
        self.kernel = model_runner.attn_kernels.decode

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        buf = pool.get_key_buffer(layer.layer_id)
        a = buf.movedim(1, 0).to(q.dtype)  # positive: f5 CL001 movedim of the whole key pool then cast
        b = pool.get_value_buffer(layer.layer_id).unflatten(-1, (2, -1))
        b = b.half()  # positive: f5 CL001 unflatten of the head dim keeps every slot
        c = torch.reshape(buf, (-1, buf.shape[-1])).float()  # positive: f5 CL001 torch.reshape of the whole key pool
        d = pool.get_kv_buffer(layer.layer_id)[0].view(-1, self.head_dim).bfloat16()  # positive: f5 CL001 view(-1, d) of the key half
        e = buf.view(self.fp8)  # negative: .view(dtype) reinterpret
        f = buf.view(-1, self.head_dim)[forward_batch.out_cache_loc].float()  # negative: gathered rows
        qq = q.movedim(0, 1).to(self.fp8)  # negative: batch q
        return self.kernel(qq, a, b, c, d, e, f)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        kb = pool.get_key_buffer(layer.layer_id)
        raw = kb.unflatten(-1, (2, -1)).view(torch.uint8)  # negative: unflatten then .view(dtype)
        kk = k.movedim(0, 1).to(q.dtype)  # negative: batch k
        vv = v.reshape(-1, self.head_dim).to(q.dtype)  # negative: batch v
        rows = torch.reshape(kb[forward_batch.out_cache_loc], (-1, kb.shape[-1])).half()  # negative: gathered before reshape
        dev = kb.movedim(1, 0).to(q.device)  # negative: device only
        return self.kernel(q, raw, kk, vv, rows, dev)


def describe(pool, layer_id):
    buf = pool.get_key_buffer(layer_id)
    return buf.shape, buf.dtype, buf.view(-1).numel()


def kv_dims(pool, layer_id):
    return pool.get_value_buffer(layer_id).shape[-1]
