"""TensorRT-LLM two-model draft/target: the draft graph runner holds a handle to the target manager."""
import torch


class _TargetHandle:
    def __init__(self, target_manager, num_layers: int):
        self.mgr = target_manager
        self.num_layers = num_layers

    def layer(self, i: int) -> torch.Tensor:
        return self.mgr.get_buffers(i)


class DraftDecodeGraphRunner:
    def __init__(self, draft_model, target_manager, dtype=torch.bfloat16):
        self.handle = _TargetHandle(target_manager, draft_model.num_layers)
        self.static = [torch.zeros_like(target_manager.get_buffers(i), dtype=dtype)  # negative: allocation at setup
                       for i in range(draft_model.num_layers)]
        self.graph = torch.cuda.CUDAGraph()

    def replay(self, inputs):
        for i, dst in enumerate(self.static):
            dst.copy_(self.handle.layer(i).to(dst.dtype))  # positive: f1 CL001 every target layer widened before each replay
        inputs["position_ids"] = inputs["position_ids"].to(torch.int32)  # negative: token positions
        self.graph.replay()
        return self.outputs
