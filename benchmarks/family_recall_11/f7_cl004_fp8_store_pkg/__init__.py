from .store import Fp8LayerStore
