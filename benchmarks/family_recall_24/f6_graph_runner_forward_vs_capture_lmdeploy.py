# lmdeploy CUDA graph runner for a backend whose kernels need fp16 caches: capture
# allocates the shadow caches; forward (each replay) refreshes them.
import torch


class FP16ShadowGraphRunner:
    def capture(self, inputs, past_key_values):
        self.shadow = [(k.to(torch.float16), v.to(torch.float16)) for k, v, *_ in past_key_values]  # negative: setup, at capture
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.output = self.model(**inputs, past_key_values=self.shadow)

    def forward(self, **kwargs):
        for (sk, sv), entry in zip(self.shadow, kwargs["past_key_values"]):
            sk.copy_(entry[0].to(torch.float16))  # positive: f6 CL001 whole key cache per replay
            sv.copy_(entry[1].to(torch.float16))  # positive: f6 CL001 whole value cache per replay
        self.kv_seqlens.copy_(kwargs["attn_metadata"].kv_seqlens.to(torch.int32))  # negative: sequence lengths
        self.graph.replay()
        return self.output
