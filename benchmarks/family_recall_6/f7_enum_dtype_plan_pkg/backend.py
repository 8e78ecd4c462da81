from f7_enum_dtype_plan_pkg.planner import FormatPlanner


class FormatMLABackend:
    def __init__(self, model_runner, decode_wrapper, verify_wrapper):
        self.planner = FormatPlanner(model_runner.server_args.kv_cache_dtype)
        self.decode_wrapper = decode_wrapper
        self.verify_wrapper = verify_wrapper

    def init_forward_metadata(self, forward_batch):
        geo = forward_batch.mla_plan_geometry
        if forward_batch.forward_mode.is_target_verify():
            self.planner.plan_verify(self.verify_wrapper, geo)
        else:
            self.planner.plan_decode(self.decode_wrapper, geo)
