"""lmdeploy fp8 fallback: past_key_values as a list of mutable [k, v] lists replaced in place per step."""
import torch


class Fp8FallbackModelAgent:
    def __init__(self, cache_engine, compute_dtype=torch.bfloat16):
        self.cache_engine = cache_engine
        self.compute_dtype = compute_dtype

    def _async_model_forward(self, inputs, step_ctx):
        pkv = [[k, v] for k, v in self.cache_engine.gpu_cache]
        for i in range(len(pkv)):
            if step_ctx.is_decoding:
                pkv[i][0] = pkv[i][0].to(self.compute_dtype)  # positive: f3 CL001 whole key cache of layer i
                pkv[i][1] = pkv[i][1].to(self.compute_dtype)  # positive: f3 CL001 whole value cache of layer i
            else:
                first = step_ctx.block_offsets[:, 0]
                pkv[i][0] = pkv[i][0][first].to(self.compute_dtype)  # negative: first-block gather
        ids = inputs.input_ids.to(step_ctx.device)  # negative: token ids
        return self._model(ids, pkv)

    def _model(self, ids, pkv):
        return ids, pkv
