"""``fairdeal-commit-reveal/4``: commit-reveal dealing with identity keys, signed and chained messages,
countersigned records and a signed settlement (``protocols/commit-reveal.md``, part 2)."""
