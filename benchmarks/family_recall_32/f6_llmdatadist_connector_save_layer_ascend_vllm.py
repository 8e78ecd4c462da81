"""vLLM-Ascend LLMDataDist P/D connector: save_kv_layer sends the layer in the wire dtype."""
import torch


class LLMDataDistConnectorWorker:
    def __init__(self, vllm_config, wire_dtype=torch.bfloat16):
        self.wire_dtype = wire_dtype
        self.pending = []

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self.wire_dtype != kv_layer.dtype:
            payload = kv_layer.to(self.wire_dtype)  # positive: f6 CL001 whole layer converted for the wire every forward
        else:
            payload = kv_layer
        slots = attn_metadata.slot_mapping.to("cpu")  # negative: slot mapping device move
        self.pending.append((layer_name, payload, slots))

    def send_request_blocks(self, layer_name, kv_layer, block_ids):
        chunk = kv_layer[:, block_ids].to(self.wire_dtype)  # negative: request blocks gathered first
        self.pending.append((layer_name, chunk, None))

    def wait_for_save(self):
        for name, payload, slots in self.pending:
            payload.to("npu:0", non_blocking=True)  # negative: device move
        self.pending.clear()
