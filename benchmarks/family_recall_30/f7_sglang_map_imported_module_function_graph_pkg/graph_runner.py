"""CUDA graph runner with bf16 shadows of an FP8 MLA pool, refreshed at every replay."""
import torch

from sglang.srt.model_executor.cuda_graph_runner import CudaGraphRunner

from . import kv_ops


class MLAShadowGraphRunner(CudaGraphRunner):
    def capture(self):
        pool = self.model_runner.token_to_kv_pool
        self.layer_ids = range(pool.start_layer, pool.start_layer + pool.layer_num)
        self.static_kv = [torch.empty_like(pool.get_key_buffer(i), dtype=torch.bfloat16) for i in self.layer_ids]  # negative: allocation at capture
        return super().capture()

    def replay(self, forward_batch, skip_attn_backend_init=False, pp_proxy_tensors=None):
        pool = self.model_runner.token_to_kv_pool
        layers = [pool.get_key_buffer(i) for i in self.layer_ids]
        for dst, src in zip(self.static_kv, map(kv_ops.widen_layer, layers)):
            dst.copy_(src)
        loc = forward_batch.out_cache_loc
        self.last_rows = [kv_ops.widen_rows(b, loc) for b in layers]
        self.cpu_lens = kv_ops.to_device(forward_batch.seq_lens, "cpu")
        return super().replay(forward_batch, skip_attn_backend_init, pp_proxy_tensors)
