"""Refresh mixins for lmdeploy Ascend ACL graph runners."""
import torch


class DenseRefreshMixin:
    refresh_dtype = torch.float16

    def _refresh_kv(self, gpu_cache):
        d = self.refresh_dtype
        return [(k.to(d), v.to(d)) for k, v in gpu_cache]  # positive: f7 CL001 every layer's whole key and value caches, reached from runner.__call__ through the star-unpacked bases

    def _refresh_blocks(self, gpu_cache, block_offsets):
        d = self.refresh_dtype
        return [(k[block_offsets].to(d), v[block_offsets].to(d)) for k, v in gpu_cache]  # negative: the batch's blocks


class KeepRefreshMixin:
    def _refresh_kv(self, gpu_cache):
        return list(gpu_cache)

    def _refresh_blocks(self, gpu_cache, block_offsets):
        return [(k[block_offsets], v[block_offsets]) for k, v in gpu_cache]
