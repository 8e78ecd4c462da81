"""An immediately invoked lambda, and a converter picked by a chained conditional expression."""
import torch


class PickConverterBackend:
    def __init__(self, model_runner):
        self.fp32 = model_runner.server_args.attention_reduce_in_fp32
        self.fp16 = model_runner.dtype == torch.float16

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        dense = (lambda t: t.half())(pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 immediately invoked lambda on the key buffer
        conv = torch.Tensor.float if self.fp32 else torch.Tensor.half if self.fp16 else torch.Tensor.bfloat16
        vals = conv(pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 converter from a chained conditional on the value buffer
        lens = conv(forward_batch.seq_lens)  # negative: same converter on lengths
        rows = (lambda t: t.half())(pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc])  # negative: gathered rows
        return q, dense, vals, lens, rows
