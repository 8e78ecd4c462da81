# lmdeploy CUDA graph runner: per-layer static inputs are dataclass records whose fields carry metadata;
# at every replay the runner walks dataclasses.fields and widens the fields flagged "whole".
import dataclasses

import torch


@dataclasses.dataclass
class _StaticInputs:
    k_cache: torch.Tensor = dataclasses.field(metadata={"whole": True})
    v_cache: torch.Tensor = dataclasses.field(metadata={"whole": True})
    block_offsets: torch.Tensor = dataclasses.field(default=None, metadata={"whole": False})
    q_seqlens: torch.Tensor = dataclasses.field(default=None, metadata={"whole": False})


class Fp16CacheGraphRunner:
    def __init__(self, cache_engine, dtype=torch.float16):
        self.records = [_StaticInputs(k, v) for k, v in cache_engine.gpu_cache]
        self.dtype = dtype

    def __call__(self, input_ids, attn_metadata):
        feeds = []
        for rec in self.records:
            rec.block_offsets, rec.q_seqlens = attn_metadata.block_offsets, attn_metadata.q_seqlens
            widened = {
                f.name: getattr(rec, f.name).to(self.dtype)  # positive: f3 CL001 the record's whole key and value caches (the fields flagged whole)
                for f in dataclasses.fields(rec)
                if f.metadata["whole"]
            }
            feeds.append(widened)
        lens = attn_metadata.q_seqlens.to(torch.int32)  # negative: lengths
        return self.graph.replay(input_ids, feeds, lens)
