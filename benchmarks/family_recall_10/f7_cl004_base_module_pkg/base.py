from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class DenseManagerBase(KVCacheManager):
    compute_dtype = None

    def dense_layer(self, layer_idx):
        return self.get_buffers(layer_idx).to(self.compute_dtype)  # positive: f7 CL004 accessor converts the whole layer
