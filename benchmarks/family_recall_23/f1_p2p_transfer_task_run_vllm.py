# vLLM v1 P2P NCCL-style connector: a per-layer transfer task object holds the whole layer cache.
import torch
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class _LayerSendTask:
    def __init__(self, layer_name, src, block_ids, wire_dtype):
        self.layer_name = layer_name
        self.src = src
        self.block_ids = block_ids
        self.wire_dtype = wire_dtype

    def payload(self):
        if self.block_ids is not None:
            return self.src[:, self.block_ids].to(self.wire_dtype)  # negative: blocks gathered before the cast
        return self.src.to(self.wire_dtype)  # positive: f1 CL001 task holds the whole layer cache, converted per save


class P2pNcclConnector(KVConnectorBase_V1):
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        full_dump = self._full_layer_dump
        task = _LayerSendTask(layer_name, kv_layer, None if full_dump else attn_metadata.slot_block_ids,
                              torch.bfloat16)
        self._send_queue.append((task.layer_name, task.payload()))
        self._send_queue.append((layer_name, kv_layer.to("cuda:1", non_blocking=True)))  # negative: device move only

    def wait_for_save(self):
        self._engine.flush(self._send_queue)
        self._send_queue.clear()
