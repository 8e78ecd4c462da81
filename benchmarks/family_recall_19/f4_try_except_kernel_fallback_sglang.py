import logging

import torch

logger = logging.getLogger(__name__)


def _fp8_decode_kernel(q, k_buf, v_buf, loc):
    raise NotImplementedError("fp8 decode kernel not built for this arch")


class TritonDecodeWithFallback:
    def _dense_fallback(self, q, k_buf, v_buf, loc):
        k_all = k_buf.to(q.dtype)  # positive: f4 CL001 except-path helper widens the whole key pool
        v_all = v_buf.to(q.dtype)  # positive: f4 CL001 whole value pool
        return torch.zeros_like(q), k_all, v_all

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        try:
            return _fp8_decode_kernel(q, k_buf, v_buf, forward_batch.out_cache_loc)
        except NotImplementedError:
            logger.debug("fp8 decode kernel missing, dense fallback")
            return self._dense_fallback(q, k_buf, v_buf, forward_batch.out_cache_loc)
        finally:
            _ = q.float()  # negative: the query
