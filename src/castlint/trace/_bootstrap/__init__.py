"""Holds sitecustomize.py, put first on PYTHONPATH by `castlint trace -- CMD`."""
