import torch


class LayoutBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.page_size = model_runner.page_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        hm = kb.moveaxis(0, 1).to(self.dtype)  # positive: f5 CL001 moveaxis keeps the whole buffer
        rc = kb.resolve_conj().resolve_neg().to(self.dtype)  # positive: f5 CL001 resolve_conj/resolve_neg are whole-keeping
        vb = pool.get_value_buffer(layer.layer_id)
        paged = vb.reshape(-1, self.page_size, *vb.shape[1:])
        pg = paged.to(self.dtype)  # positive: f5 CL001 paged reshape driven by the buffer's own trailing shape
        qm = q.moveaxis(0, 1).to(self.dtype)  # negative: batch query
        last = kb[-forward_batch.batch_size:].to(self.dtype)  # negative: bounded tail
        return hm, rc, pg, qm, last
