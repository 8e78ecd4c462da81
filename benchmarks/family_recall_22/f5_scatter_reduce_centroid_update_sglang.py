import torch


class RetrievalHeadIndex:
    def __init__(self, num_clusters, head_dim):
        self.sums = torch.zeros(num_clusters, head_dim, dtype=torch.float32)  # negative: allocation

    def update(self, k_buf: torch.Tensor, labels: torch.Tensor):
        flat = k_buf.reshape(-1, k_buf.shape[-1])
        self.sums.scatter_reduce_(
            0, labels[:, None].expand_as(flat), flat.to(torch.float32), reduce="mean"  # positive: f5 CL001 whole key buffer reshaped and widened
        )

    def update_rows(self, k_buf, loc, labels):
        rows = k_buf[loc].to(torch.float32)  # negative: new rows only
        self.sums.index_add_(0, labels, rows)


class RetrievalBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        layer.index.update(k_buf, forward_batch.cluster_labels)
        layer.index.update_rows(k_buf, forward_batch.out_cache_loc, forward_batch.new_labels)
