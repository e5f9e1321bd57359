"""The auditor: replays logged shuffles and hands, measures shuffle quality, tests talons and hands for targeting,
and tracks each dealer's evidence with calibrated, multiplicity-corrected statistics.

Two paths share the statistics. The streaming pass for logs of any size (``run.run_audit``): ``fastpath``
(narrow bulk decoding, shuffle replay as op tables), ``block`` (one block of hands at array speed, with
``bulk_replay`` for its shuffles, ``exact`` for its per-hand statistics, ``summary`` for what it returns), ``scan``
(blocks in worker processes, merged in log order), ``battery`` (GLI tests for digital deals), ``verdict``
(tests, Holm/BH, CUSUM and e-process alarms), ``legality`` (every hand through the engine, score lines
recomputed), ``html`` (the report with plots). The per-hand deep audit (``report.audit_log``) adds the
same-effort Monte Carlo null: ``stats``, ``sequential``, ``tally``, ``quality``, ``targeting``, ``replay``,
``evidence``. ``simulate`` makes honest and cheating evenings for calibration and benchmarks.
"""

from fairdeal.audit.evidence import AuditOptions
from fairdeal.audit.report import AuditReport, audit_log
from fairdeal.audit.run import AuditResult, RunOptions, run_audit

__all__ = ["AuditOptions", "AuditReport", "AuditResult", "RunOptions", "audit_log", "run_audit"]
