"""MLA plan dtypes come from helper dicts and a dispatch dict of lambdas on self."""
import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class PlanHelperMLABackend:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # torch.float8_e4m3fn pool
        self.num_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.sm_scale = model_runner.model_config.scaling
        ws = torch.empty(128 * 1024 * 1024, dtype=torch.uint8, device=model_runner.device)
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(ws, backend="fa3")
        self.prefill_wrapper = BatchMLAPagedAttentionWrapper(ws, backend="fa3")
        self.draft_wrapper = BatchMLAPagedAttentionWrapper(ws, backend="fa3")
        self.verify_wrapper = BatchMLAPagedAttentionWrapper(ws, backend="fa3")
        self._dtype_modes = {
            "upcast": lambda: (self.model_dtype, self.model_dtype),
            "native": lambda: (self.model_dtype, self.kv_cache_dtype),
        }

    def _dtype_dict(self):
        return {"q": self.model_dtype, "kv": self.model_dtype}

    def _native_dict(self):
        return {"q": self.model_dtype, "kv": self.kv_cache_dtype}

    def init_forward_metadata(self, forward_batch):
        md = forward_batch.mla_plan_inputs
        if forward_batch.forward_mode.is_decode():
            dts = self._dtype_dict()
            self.decode_wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, dts["q"], dts["kv"])  # positive: f4 CL002 kv dtype from a helper dict holding the model dtype
        else:
            self.prefill_wrapper.plan(qo_indptr=md.qo_indptr, kv_indptr=md.kv_indptr, kv_indices=md.kv_indices, kv_len_arr=md.kv_lens, num_heads=self.num_heads, head_dim_ckv=512, head_dim_kpe=64, page_size=1, causal=True, sm_scale=self.sm_scale, q_data_type=self.model_dtype, kv_data_type=self._dtype_dict()["kv"])  # positive: f4 CL002 keyword kv_data_type from the helper dict
        q_dt, kv_dt = self._dtype_modes["upcast"]()
        self.draft_wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, q_dt, kv_dt)  # positive: f4 CL002 dtype pair from the "upcast" lambda in a dispatch dict
        q_dt, kv_dt = self._dtype_modes["native"]()
        self.verify_wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, q_dt, kv_dt)  # negative: "native" lambda declares the pool dtype
        nd = self._native_dict()
        self.decode_wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, nd["q"], nd["kv"])  # negative: kv from the native dict
