import functools

import torch


class AscendMLABackend:
    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self._decode = functools.partial(
            self._decode_impl, pool=model_runner.token_to_kv_pool
        )

    def _decode_impl(self, q, layer, forward_batch, *, pool):
        latent = pool.get_key_buffer(layer.layer_id)
        paged = latent.view(-1, self.page_size, 1, 576)
        if layer.qk_head_dim != 576 or q.dtype == torch.float16:
            paged = paged.to(torch.float16)  # positive: f1 CL001 every page of the pool bound by the partial
        block_table = forward_batch.block_tables.to(torch.int32)  # negative: block table
        actual = forward_batch.seq_lens_cpu_int.tolist()
        return paged, block_table, actual

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        q_rope = q[..., 512:].to(torch.float16)  # negative: the step's rope part of q
        return self._decode(q, layer, forward_batch), q_rope
