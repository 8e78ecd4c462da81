"""Reader base class in base.py, implementations in impls.py."""
