"""AOTAutograd (``aot_autograd.py``): a captured graph's forward and backward generated ahead of time."""
