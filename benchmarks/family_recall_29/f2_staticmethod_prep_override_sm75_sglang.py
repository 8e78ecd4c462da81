"""sglang Triton backend: the base's _prep staticmethod is identity; the Turing (SM75) subclass widens."""
import torch


class TritonAttnBackend:
    @staticmethod
    def _prep(buf: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        return buf

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k.to(pool.dtype), v.to(pool.dtype))  # negative: new tokens written
        k_buf = self._prep(pool.get_key_buffer(layer.layer_id), q.dtype)
        v_buf = self._prep(pool.get_value_buffer(layer.layer_id), q.dtype)
        return self._decode(q, k_buf, v_buf, forward_batch)


class TuringTritonAttnBackend(TritonAttnBackend):
    """SM75: Triton has no fp8 loads below SM89."""

    @staticmethod
    def _prep(buf: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        if buf.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            return buf.to(dtype)  # positive: f2 CL001 whole per-layer buffer passed in by the base forward_decode
        return buf

    @staticmethod
    def _prep_rows(buf, loc, dtype):
        return buf[loc].to(dtype)  # negative: rows gathered first
