import torch


class FunctionalFormsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self.pool.get_kv_buffer(layer.layer_id)
        a = torch.permute(kb, (1, 0, 2)).contiguous().to(q.dtype)  # positive: f5 CL001 torch.permute of the whole K layer
        b = vb.mT.half()  # positive: f5 CL001 matrix transpose of the whole V layer
        c = torch.transpose(kb, 0, 1).float()  # positive: f5 CL001 functional transpose
        d = torch.flatten(vb, 1).bfloat16()  # positive: f5 CL001 functional flatten
        e = torch.reshape(kb, kb.shape).to(q.dtype)  # positive: f5 CL001 reshape to its own shape
        f = torch.narrow(kb, 0, 0, forward_batch.extend_num_tokens).to(q.dtype)  # negative: narrowed to the step's tokens
        return a, b, c, d, e, f
