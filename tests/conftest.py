"""Test-wide settings: CI runs hypothesis derandomized, and no test fails on a slow shared machine's deadline."""

import os

from hypothesis import settings

settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")
