"""A NIXL-style connector that converts each saved layer when the remote KV dtype differs."""
import torch


class NixlLikeConnectorWorker:
    def __init__(self, vllm_config, remote_dtype):
        self.remote_dtype = remote_dtype
        self._recving = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        first = next(iter(kv_caches.values()))
        self.local_dtype = first.dtype
        self._desc_probe = first.to(self.remote_dtype)  # negative: registration time

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self.remote_dtype != self.local_dtype:
            wire = kv_layer.to(self.remote_dtype)  # positive: f6 CL001 whole layer converted for the remote dtype on every save
        else:
            wire = kv_layer
        self._post_write(layer_name, wire[:, self._send_block_ids])

    def start_load_kv(self, forward_context, **kwargs):
        for name, blocks in self._recving.items():
            dst = self.kv_caches[name]
            dst[:, blocks] = self._recv_buf[name].to(dst.dtype)  # negative: received rows cast to the pool dtype (writer)
