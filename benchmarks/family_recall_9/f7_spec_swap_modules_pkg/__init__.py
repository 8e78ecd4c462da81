"""The EAGLE worker module points the shared backend at the draft or target pool each step."""
