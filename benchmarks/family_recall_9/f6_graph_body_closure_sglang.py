"""Per-layer bodies (a closure and a lambda) captured into CUDA graphs and also run eagerly each step."""
import torch


class ClosureGraphRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.graphs, self.bodies, self.v_bodies = {}, {}, {}
        self.static_lens = torch.zeros(256, dtype=torch.int32, device="cuda")

    def _make_body(self, layer_id):
        pool, dtype = self.pool, self.dtype

        def body():
            return pool.get_key_buffer(layer_id).to(dtype)  # positive: f6 CL001 closure run eagerly every step (and replayed)

        return body

    def capture(self, layer_ids):
        for lid in layer_ids:
            self.bodies[lid] = self._make_body(lid)
            self.v_bodies[lid] = lambda lid=lid: self.pool.get_value_buffer(lid).half()  # positive: f6 CL001 lambda run eagerly every step
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                self.bodies[lid]()
            self.graphs[lid] = g
        self.static_lens_f = self.static_lens.to(torch.float32)  # negative: capture-time, small

    def replay(self, layer_id):
        self.graphs[layer_id].replay()
        return self.static_lens[:8].to(torch.int64)  # negative: static lengths

    def forward(self, layer_id, use_graph):
        if use_graph:
            return self.replay(layer_id)
        return self.bodies[layer_id](), self.v_bodies[layer_id]()
