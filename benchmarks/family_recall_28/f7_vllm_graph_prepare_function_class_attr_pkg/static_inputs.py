"""Static-input refresh functions; prepare_static is bound as a method of the graph wrapper."""
import torch


def prepare_static(self, kv_caches):
    for name, kv in kv_caches.items():
        self.static_kv[name].copy_(kv.to(self.dtype))  # positive: f7 CL001 whole layer cache; run as DenseKVCUDAGraphWrapper._prepare in __call__


def allocate_static(self, kv_caches):
    self.static_kv = {name: torch.empty_like(kv, dtype=self.dtype) for name, kv in kv_caches.items()}  # negative: allocation (setup, from capture)


def refresh_tail(self, kv_caches, num_blocks):
    for name, kv in kv_caches.items():
        self.static_kv[name][:, -num_blocks:].copy_(kv[:, -num_blocks:].to(self.dtype))  # negative: tail blocks selected first
