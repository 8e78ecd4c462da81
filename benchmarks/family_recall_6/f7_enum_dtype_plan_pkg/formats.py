import enum

import torch


class KVFormat(enum.Enum):
    BF16 = "bf16"
    FP8_E4M3 = "fp8_e4m3"

    @property
    def storage_dtype(self):
        return torch.float8_e4m3fn if self is KVFormat.FP8_E4M3 else torch.bfloat16

    @property
    def compute_dtype(self):
        return torch.bfloat16

    @classmethod
    def from_server_args(cls, kv_cache_dtype):
        return cls.FP8_E4M3 if kv_cache_dtype.startswith("fp8") else cls.BF16
