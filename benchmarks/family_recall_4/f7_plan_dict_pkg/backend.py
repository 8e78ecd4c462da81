import torch

from .dtypes import native_plan_dtypes, upcast_plan_dtypes
from .planner import MLAPlanner


class DictPlanBackend:
    def __init__(self, model_runner):
        self.runner = model_runner  # kv_cache_dtype is torch.float8_e4m3fn
        self.num_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.sm_scale = model_runner.model_config.scaling
        self.decode_planner = MLAPlanner(model_runner.device)
        self.native_planner = MLAPlanner(model_runner.device)

    def init_forward_metadata(self, forward_batch):
        md = forward_batch.mla_plan_inputs
        common = dict(qo_indptr=md.qo_indptr, kv_indptr=md.kv_indptr, kv_indices=md.kv_indices, kv_len_arr=md.kv_lens, num_heads=self.num_heads, head_dim_ckv=512, head_dim_kpe=64, page_size=1, causal=False, sm_scale=self.sm_scale)
        self.decode_planner.wrapper.plan(**common, **upcast_plan_dtypes(self.runner))  # positive: f7 CL002 kv_data_type from dtypes.py is the model dtype
        self.native_planner.wrapper.plan(**common, **native_plan_dtypes(self.runner))  # negative: kv_data_type is the pool dtype
        lens = md.kv_lens.to(torch.int32)  # negative: lengths
        return lens

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ckv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        ckv = ckv.to(q.dtype)  # positive: f7 CL001 whole latent pool fed to the upcast plan
        return self.decode_planner.wrapper.run(q[..., :512], q[..., 512:], ckv[..., :512], ckv[..., 512:])
