"""Model providers behind one small async protocol (see :mod:`harness.providers.base`)."""

from harness.providers.base import Provider, current_case

__all__ = ["Provider", "current_case"]
