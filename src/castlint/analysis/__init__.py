"""What a value is, on the libcst tree: where it comes from (a whole pool, a gather of one,
or something else), hot paths, and the site matchers rules and codemods share.

ModuleAnalysis and Origin load with castlint.analysis.dataflow (and libcst) on first use,
so that the rule registry and the light modules here import without the parser.
"""

__all__ = ["ModuleAnalysis", "Origin"]


def __getattr__(name: str):
    if name in __all__:
        from castlint.analysis import dataflow

        return getattr(dataflow, name)
    raise AttributeError(name)
