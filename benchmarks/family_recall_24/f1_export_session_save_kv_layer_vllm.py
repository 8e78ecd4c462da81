# vLLM v1 KV connector: save_kv_layer builds a small per-layer session object that
# holds the paged layer and materialises it for the host transfer.
import torch
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class _ExportSession:
    def __init__(self, layer_name, kv_layer, wire_dtype):
        self.layer_name = layer_name
        self._kv = kv_layer
        self._wire_dtype = wire_dtype

    def materialize(self):
        return self._kv.to(self._wire_dtype)  # positive: f1 CL001 whole paged layer held by the session, per save

    def materialize_blocks(self, block_ids):
        return self._kv[:, block_ids].to(self._wire_dtype)  # negative: blocks selected before the cast

    def to_host(self):
        return self._kv.to("cpu", non_blocking=True)  # negative: device move, dtype kept


class HostExportConnector(KVConnectorBase_V1):
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        meta = self._get_connector_metadata()
        session = _ExportSession(layer_name, kv_layer, torch.bfloat16)
        if meta.full_layer:
            self._queue.put((layer_name, session.materialize()))
        else:
            self._queue.put((layer_name, session.materialize_blocks(meta.block_ids)))
