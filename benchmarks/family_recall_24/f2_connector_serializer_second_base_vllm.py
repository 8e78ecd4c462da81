# vLLM v1 connector built from the connector base class plus a serializer base; the
# concrete connector's save path calls the serializer's method through self.
import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class _TorchSerializer:
    wire_dtype = torch.bfloat16

    def _serialize_layer(self, kv_layer):
        return kv_layer.to(self.wire_dtype).cpu()  # positive: f2 CL001 whole layer in the second base

    def _serialize_blocks(self, kv_layer, block_ids):
        return kv_layer[:, block_ids].to(self.wire_dtype).cpu()  # negative: blocks first


class DiskDumpConnector(KVConnectorBase_V1, _TorchSerializer):
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        meta = self._get_connector_metadata()
        if meta.dump_all:
            torch.save(self._serialize_layer(kv_layer), self._path(layer_name))
        else:
            for req in meta.requests:
                torch.save(self._serialize_blocks(kv_layer, req.block_ids), self._path(layer_name, req.req_id))
