"""pigdice: play, solve and study Pig and its family of jeopardy dice games."""

from pigdice.kernelcache import use_kernel_cache

__version__ = "0.1.0"

use_kernel_cache()  # before any numba import: compiled kernels are kept per version of their sources
