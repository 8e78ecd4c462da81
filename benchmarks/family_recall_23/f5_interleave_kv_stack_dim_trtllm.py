# TensorRT-LLM KV transceiver for a bf16-only peer: key/value planes are stacked along a new head axis.
import torch


class BF16PeerTransceiver:
    def respond_and_send_async(self, req):
        mgr = self.kv_cache_manager
        for layer in range(mgr.num_local_layers):
            buf = mgr.get_buffers(layer)
            interleaved = torch.stack((buf[:, 0], buf[:, 1]), dim=-2).to(torch.bfloat16)  # positive: f5 CL001 both planes stacked whole
            blocks = mgr.get_batch_cache_indices([req.py_request_id])[0]
            sent = buf[blocks].to(torch.bfloat16)  # negative: the request's blocks
            self._send(req, layer, sent if self.block_mode else interleaved)
