import torch


class BeamSearchKVReorder:
    """Beam search over a paged pool: beams share slots, reordering remaps indices only."""

    def __init__(self, token_to_kv_pool):
        self.pool = token_to_kv_pool

    def reorder(self, layer_id, beam_src_loc, dtype):
        k_buf, v_buf = self.pool.get_kv_buffer(layer_id)
        k_beams = k_buf.index_select(0, beam_src_loc).to(dtype)  # negative: index_select of beam rows first
        v_beams = v_buf.to(dtype).index_select(0, beam_src_loc)  # positive: f5 CL001 whole value pool widened before the select
        k_scored = k_buf.to(dtype)[beam_src_loc]  # positive: f5 CL001 cast before indexing
        return k_beams, v_beams, k_scored


class BeamTritonBackend:
    def __init__(self, model_runner):
        self.reorder = BeamSearchKVReorder(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.reorder.reorder(layer.layer_id, forward_batch.beam_src_loc, q.dtype)
