import torch


class EagleSpecAgent:
    def __init__(self, draft_cache_engine, target_cache_engine, num_spec_tokens):
        self.draft_cache = draft_cache_engine
        self.target_cache = target_cache_engine
        self.num_spec_tokens = num_spec_tokens

    async def _async_model_forward(self, inputs, target_hidden):
        dk, dv = self.draft_cache.gpu_cache[0]
        dk = dk.to(target_hidden.dtype)  # positive: f6 CL001 whole draft key cache each draft step
        dv = dv.to(target_hidden.dtype)  # positive: f6 CL001 whole draft value cache each draft step
        tk, _ = self.target_cache.gpu_cache[-1]
        tail = tk[inputs.block_offsets[:, -1]].to(target_hidden.dtype)  # negative: last blocks of the batch
        hid = target_hidden.to(torch.float16)  # negative: hidden states
        for _ in range(self.num_spec_tokens):
            hid = hid + dk.mean()
        return hid, dv, tail
