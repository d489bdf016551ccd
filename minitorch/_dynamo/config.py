"""Settings of graph capture (``torch._dynamo.config``'s names)."""

# How many graphs one compiled function keeps (one per set of guards) before it runs new signatures eagerly.
# PyTorch 2.13 calls it recompile_limit and keeps cache_size_limit as its old name: the smaller one applies.
recompile_limit = 8
cache_size_limit = 8
