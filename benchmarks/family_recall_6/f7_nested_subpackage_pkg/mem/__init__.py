from .blocks import BlockArena as BlockArena
