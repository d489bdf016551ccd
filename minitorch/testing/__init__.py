"""``minitorch.testing``: ``assert_close``, the comparison PyTorch's own tests and tutorials use."""

from ._comparison import assert_close

__all__ = ["assert_close"]
