# sglang MHA pool debug statistic collected from the model runner's forward: a list of
# (k_buffer, v_buffer) pairs, one per layer, scanned every stats_interval steps.
import torch


class ModelRunner:
    def forward(self, forward_batch, skip_attn_backend_init=False):
        out = self._forward_raw(forward_batch, skip_attn_backend_init)
        self._step += 1
        if self.server_args.kv_stats_interval and self._step % self.server_args.kv_stats_interval == 0:
            pool = self.token_to_kv_pool
            pairs = list(zip(pool.k_buffer, pool.v_buffer))
            stats = []
            for layer_id, (k_buf, v_buf) in enumerate(pairs):
                stats.append(v_buf.float().abs().amax())  # positive: f3 CL001 whole value buffer from the pair list
                stats.append(k_buf[forward_batch.out_cache_loc].float().abs().amax())  # negative: this step's slots
            self._report(stats)
        return out
