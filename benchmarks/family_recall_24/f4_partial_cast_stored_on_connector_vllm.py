# vLLM v1 P/D connector: the wire cast is bound once with functools.partial in __init__
# and used on the per-layer save path.
import functools

import torch


class WireCastConnector:
    def __init__(self, vllm_config, role):
        self.wire_dtype = torch.bfloat16
        self._widen = functools.partial(torch.Tensor.to, dtype=self.wire_dtype)
        self._to_host = functools.partial(torch.Tensor.to, device="cpu", non_blocking=True)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        meta = self._get_connector_metadata()
        if meta.send_whole_layer:
            self._push(layer_name, self._widen(kv_layer))  # positive: f4 CL001 whole layer through the stored partial
        for req in meta.requests:
            part = self._widen(kv_layer[:, req.block_ids])  # negative: blocks selected first
            self._push(f"{layer_name}/{req.request_id}", self._to_host(part))  # negative: device move
