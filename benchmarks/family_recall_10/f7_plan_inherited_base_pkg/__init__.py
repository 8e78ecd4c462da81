"""Plan helpers in a base class (base.py) read dtypes set in its __init__; a speculative backend (spec.py) inherits them."""
