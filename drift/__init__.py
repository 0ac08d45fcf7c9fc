"""drift: read a vLLM install without importing it, and tell what breaks your code."""

__version__ = "0.1.0"
