"""The audit report a tournament director reads: the verdict in sentences (English and Russian), the hands that
carry the evidence with their cards drawn, the evidence over time as a plot, and the JSON schema of ``--json``.

Presentation only: every figure comes from the ``Verdict`` and the evidence hands the pass kept (``audit.candidates``).
"""
