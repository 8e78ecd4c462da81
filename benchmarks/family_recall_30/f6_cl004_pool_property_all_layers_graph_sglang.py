"""sglang MLA pool with a dense_kv_buffers property converting every layer; the shadow graph runner reads it at each replay."""
import torch

from sglang.srt.mem_cache.memory_pool import MLATokenToKVPool
from sglang.srt.model_executor.cuda_graph_runner import CudaGraphRunner


class MLATokenToKVPoolDenseView(MLATokenToKVPool):
    @property
    def dense_kv_buffers(self):
        return [buf.view(self.dtype).to(self.model_dtype) for buf in self.kv_buffer]  # positive: f6 CL004 the pool's own property converting every whole layer (one line)

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id - self.start_layer].view(self.dtype)  # negative: zero-copy reinterpret of the uint8 store

    def dense_rows(self, layer_id, loc):
        return self.kv_buffer[layer_id - self.start_layer][loc].view(self.dtype).to(self.model_dtype)  # negative: rows gathered first


class DenseShadowCudaGraphRunner(CudaGraphRunner):
    def replay(self, forward_batch, skip_attn_backend_init=False, pp_proxy_tensors=None):
        pool = self.model_runner.token_to_kv_pool
        for dst, src in zip(self.static_kv, pool.dense_kv_buffers):
            dst.copy_(src)
        self.seq_lens[: forward_batch.batch_size].copy_(forward_batch.seq_lens.to(torch.int32))  # negative: lengths
        return super().replay(forward_batch, skip_attn_backend_init, pp_proxy_tensors)
