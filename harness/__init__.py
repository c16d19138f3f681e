"""council-harness: evaluation and regression-testing harness for multi-model LLM councils."""

__version__ = "0.1.0"
