"""Configuration: the settings model, the command-line and ini options, the generated reference."""

from __future__ import annotations
