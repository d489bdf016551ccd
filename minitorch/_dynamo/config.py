"""Settings of graph capture (``torch._dynamo.config``'s names)."""

# How many graphs one compiled function keeps (one per set of guards) before it runs new ones eagerly.
cache_size_limit = 8
recompile_limit = cache_size_limit
