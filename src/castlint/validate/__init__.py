"""castlint validate: run the original and the fixed backend side by side.

Importing this package does not import torch; `command.run_validate` imports it
only when a validation actually runs (torch is the optional extra
``castlint[validate]``).
"""
