import torch


class QuestPageSelector:
    """Quest-style page selection: per-page key min/max summaries refreshed each step."""

    def __init__(self, token_to_kv_pool, page_size: int, top_pages: int):
        self.pool = token_to_kv_pool
        self.page_size = page_size
        self.top_pages = top_pages
        self.scale = token_to_kv_pool.get_key_buffer(0).new_ones(1).float()  # negative: setup, one element

    def summaries(self, layer_id: int):
        k = self.pool.get_key_buffer(layer_id)
        kf = k.float()  # positive: f1 CL001 whole per-layer key buffer widened for page summaries
        pages = kf.view(-1, self.page_size, *kf.shape[1:])
        return pages.amax(1), pages.amin(1)

    def refine(self, layer_id: int, page_ids: torch.Tensor):
        k = self.pool.get_key_buffer(layer_id)
        rows = (page_ids[:, None] * self.page_size + torch.arange(self.page_size, device=k.device)).flatten()
        return k[rows].float()  # negative: selected pages gathered before the cast


class QuestAttnBackend:
    def __init__(self, model_runner):
        self.selector = QuestPageSelector(model_runner.token_to_kv_pool, 16, 64)

    def forward_decode(self, q, k, v, layer, forward_batch):
        kmax, kmin = self.selector.summaries(layer.layer_id)
        score = (q.float().unsqueeze(1) * torch.maximum(kmax, kmin)).sum(-1)  # negative: query and summaries
        pages = score.topk(self.selector.top_pages, dim=-1).indices.flatten()
        return self.selector.refine(layer.layer_id, pages)
