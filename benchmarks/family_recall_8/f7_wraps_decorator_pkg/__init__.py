from .impl import WrappedImpl
