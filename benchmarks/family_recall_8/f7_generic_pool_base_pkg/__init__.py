from .impl import FP8Holder
