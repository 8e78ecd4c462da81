import torch


class DecodeWorkspace:
    def __init__(self):
        self._k_buffer = None

    @property
    def k_buffer(self):
        return self._k_buffer

    @k_buffer.setter
    def k_buffer(self, value):
        self._k_buffer = value


class Bf16DecodeWorkspace(DecodeWorkspace):
    """MUSA: no FP8 MLA kernel, so the workspace keeps a bf16 copy of whatever is assigned."""

    @DecodeWorkspace.k_buffer.setter
    def k_buffer(self, value):
        DecodeWorkspace.k_buffer.fset(self, value.to(torch.bfloat16))  # positive: f2 CL001 the subclass's property setter converts the whole key layer assigned each step


class MusaMLABackend:
    def __init__(self, model_runner, native_fp8):
        self.pool = model_runner.token_to_kv_pool
        self.ws = DecodeWorkspace() if native_fp8 else Bf16DecodeWorkspace()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.ws.k_buffer = self.pool.get_key_buffer(layer.layer_id)
        page = self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(torch.bfloat16)  # negative: rows selected before the cast
        return self.ws.k_buffer, page
