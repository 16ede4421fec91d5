"""pigdice: play, solve and study Pig and its family of jeopardy dice games."""

__version__ = "0.1.0"
