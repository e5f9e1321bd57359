"""The auditor: replays logged shuffles and hands, reads the shuffle's own tells, tests talons and hands for
targeting, and tracks each dealer's evidence with calibrated, multiplicity-corrected statistics.

One pipeline, ``run.run_audit`` (what ``fairdeal audit LOG`` runs), for logs of any size: ``fastpath`` (narrow
bulk decoding, shuffle replay as op tables), ``block`` (one block of hands at array speed, with ``bulk_replay``
for its shuffles, ``logged`` for what they can carry and their permutations, ``shuffle_quality`` for their
quality per hand, ``targeting`` for each deal against honest shuffles of the same effort, ``tells`` for the
shuffle's own tells, ``exact`` for its per-hand statistics, ``summary`` for what it returns), ``scan`` (blocks in
worker processes, merged in log order), ``battery`` (GLI tests for digital deals), ``seeds`` (the opt-in weak-server
seed search), ``verdict`` (tests, Holm/BH, CUSUM and e-process alarms), ``legality`` (every hand through the engine,
score lines recomputed), ``html`` (the report with plots).
Shared parts: ``stats``, ``sequential``, ``quality``, ``replay``. ``simulate`` makes honest and
cheating evenings for calibration and benchmarks.
"""

from fairdeal.audit.run import AuditResult, RunOptions, run_audit

__all__ = ["AuditResult", "RunOptions", "run_audit"]
