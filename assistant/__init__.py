"""A grounded, citing chat assistant for an AI compute infrastructure glossary.

Importing the package does nothing heavy; `Assistant` is loaded on first use.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .chain import Assistant
    from .config import Settings

__all__ = ["Assistant", "Settings"]


def __getattr__(name: str) -> Any:
    if name == "Assistant":
        from .chain import Assistant

        return Assistant
    if name == "Settings":
        from .config import Settings

        return Settings
    raise AttributeError(name)
