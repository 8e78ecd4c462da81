# view / reshape / permute / transpose / flatten / unflatten / squeeze, then a conversion.
import torch


class ReshapingBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        a = buf.view(-1, 1, buf.shape[-1]).squeeze(1).to(q.dtype)  # positive: f5 CL001 view then squeeze of the whole pool
        b = buf.unflatten(0, (-1, self.page_size)).permute(0, 2, 1, 3).contiguous().float()  # positive: f5 CL001 paged permute of every slot
        c = buf.transpose(1, 2).to(torch.float32)  # positive: f5 CL001 transpose of the whole pool
        d = buf.reshape(-1, self.page_size, buf.shape[-2], buf.shape[-1]).flatten(2).bfloat16()  # positive: f5 CL001 reshape then flatten keeps the whole pool
        e = buf.unsqueeze(1).expand(-1, 2, -1, -1).half()  # positive: f5 CL001 unsqueeze/expand then cast
        f = buf.view(torch.uint8)  # negative: reinterpret bytes
        g = buf.view(torch.float8_e4m3fn).view(-1, buf.shape[-1])  # negative: reinterpret, then a shape view
        h = buf.flatten(0, 1)[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered after flattening
        i = buf.view(-1, buf.shape[-1])[: forward_batch.seq_lens_sum].float()  # negative: active prefix
        j = q.reshape(-1, layer.tp_q_head_num, layer.head_dim).transpose(0, 1).to(self.dtype)  # negative: q reshaped
        return a, b, c, d, e, f, g, h, i, j
