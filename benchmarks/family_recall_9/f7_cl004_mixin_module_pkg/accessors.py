class DenseAccessMixin:
    def get_dense_key(self, layer_id):
        return self.k_buffer[layer_id - self.start_layer].to(self.dtype)  # positive: f7 CL004 accessor of the pool (via the mixin) converts the whole layer

    def get_lens(self, idx):
        return self.req_lens[idx].long()  # negative: per-request lengths
