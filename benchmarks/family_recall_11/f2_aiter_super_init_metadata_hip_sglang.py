import torch


class TritonBackendBase:
    def init_forward_metadata(self, forward_batch):
        bs = forward_batch.batch_size
        self.kv_indptr = torch.zeros(bs + 1, dtype=torch.int32)
        self.kv_indptr[1:] = torch.cumsum(forward_batch.seq_lens, 0)


class AiterMLAFallbackBackend(TritonBackendBase):
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.start_layer = model_runner.start_layer
        self.end_layer = model_runner.end_layer
        self.native_fp8 = model_runner.server_args.enable_aiter_fp8

    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.seq_lens_i32 = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
        self.layers_bf16 = None
        if forward_batch.forward_mode.is_decode_or_idle() and not self.native_fp8:
            pool = forward_batch.token_to_kv_pool
            self.layers_bf16 = [
                pool.get_key_buffer(i).to(self.dtype)  # positive: f2 CL001 every layer's whole fnuz latent buffer upcast in the overriding init_forward_metadata
                for i in range(self.start_layer, self.end_layer)
            ]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.layers_bf16 is not None:
            kv = self.layers_bf16[layer.layer_id - self.start_layer]
        else:
            kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return kv, self.kv_indptr[: forward_batch.batch_size + 1].to(torch.int64)  # negative: indptr
