# Comprehensions and generators over the layers of a pool.
from typing import Dict, List

import torch


class ComprehensionMHAPool:
    def __init__(self, size: int, page_size: int, head_num: int, head_dim: int, layer_num: int, dtype: torch.dtype, device: str, start_layer: int = 0):
        self.size = size
        self.start_layer = start_layer
        self.end_layer = start_layer + layer_num
        self.device = device
        self.k_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id: int):
        return self.k_buffer[layer_id - self.start_layer]

    def snapshot_fp32(self) -> List[torch.Tensor]:
        return [self.get_key_buffer(i).float() for i in range(self.start_layer, self.end_layer)]  # positive: f3 CL001 every layer's whole key arena, in a list comprehension

    def snapshot_dict(self, dtype: torch.dtype) -> Dict[int, torch.Tensor]:
        return {i: buf.to(dtype) for i, buf in enumerate(self.v_buffer)}  # positive: f3 CL001 dict comprehension over enumerate of whole value arenas

    def absmax(self) -> torch.Tensor:
        return max(b.float().abs().max() for b in self.k_buffer)  # positive: f3 CL001 generator upcasts each whole arena

    def used_fp32(self, num_tokens: int) -> List[torch.Tensor]:
        return [buf[:num_tokens].float() for buf in self.k_buffer]  # negative: active prefix of each layer

    def to_host(self) -> List[torch.Tensor]:
        return [buf.to("cpu", non_blocking=True) for buf in self.k_buffer]  # negative: device move

    def bytes_view(self) -> List[torch.Tensor]:
        return [buf.view(torch.uint8) for buf in self.v_buffer]  # negative: reinterpret

    def gather_all(self, loc: torch.Tensor) -> List[torch.Tensor]:
        return [buf[loc].to(torch.float32) for buf in self.v_buffer]  # negative: gathered slots per layer

    def reversed_half(self) -> List[torch.Tensor]:
        return [b.half() for b in reversed(list(zip(self.k_buffer, self.v_buffer))[0])]  # positive: f3 CL001 reversed/list/zip over the arenas
