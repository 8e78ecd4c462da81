# TensorRT-LLM KV dump for accuracy debugging; a small layer bundle object carries the buffer.
import torch


class KVBundle:
    def __init__(self, kind, buf):
        self.kind = kind
        self.buf = buf


class KVDebugHook:
    def _forward_step(self, executor, scheduled):
        mgr = executor.resource_manager.get_resource_manager("kv_cache_manager")
        for idx in range(mgr.num_local_layers):
            bundle = KVBundle("mamba" if idx in mgr.state_layers else "attn", mgr.get_buffers(idx))
            if bundle.kind == "attn":
                self.sink[idx] = bundle.buf.to(torch.float32)  # positive: f1 CL001 whole buffer carried by the bundle
            else:
                self.sink[idx] = bundle.buf.to(torch.float32)  # negative: SSM state buffer, not the KV cache
