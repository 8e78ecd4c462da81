from .formats import KVFormat as Fmt


class FormatPlanner:
    def __init__(self, kv_cache_dtype: str):
        self.fmt = Fmt.from_server_args(kv_cache_dtype)

    def plan_decode(self, wrapper, geo):
        wrapper.plan(*geo, q_data_type=self.fmt.compute_dtype, kv_data_type=self.fmt.compute_dtype)  # positive: f7 CL002 kv dtype is the compute dtype while the pool may be FP8

    def plan_verify(self, wrapper, geo):
        wrapper.plan(*geo, q_data_type=self.fmt.compute_dtype, kv_data_type=self.fmt.storage_dtype)  # negative: kv dtype is the storage dtype
