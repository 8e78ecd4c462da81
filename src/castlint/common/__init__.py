"""Small helpers every layer shares: text encodings, versions, paths, diffs, exit codes.

Each exists once, here. Nothing in this package imports the rest of castlint.
"""
