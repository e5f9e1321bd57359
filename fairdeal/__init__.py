"""fairdeal: provably fair dealing, a full Preferans engine, and an auditor for card-game logs."""

__version__ = "0.1.0"
