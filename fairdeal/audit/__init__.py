"""The auditor: replays logged shuffles, measures shuffle quality, tests talons and hands for targeting, and
tracks each dealer's evidence with calibrated, multiplicity-corrected statistics.

Modules: ``stats`` (exact nulls, p-values, Fisher/Stouffer, Holm/BH), ``sequential`` (CUSUM, e-process),
``tally`` (mergeable per-dealer sums), ``quality`` (shuffle quality against the gathered order), ``targeting``
(same-effort and cross-match tests), ``replay`` (deal comparison and shuffle tells), ``evidence`` and ``report``
(the streaming log audit), ``simulate`` (honest and cheating evenings for calibration).
"""

from fairdeal.audit.evidence import AuditOptions
from fairdeal.audit.report import AuditReport, audit_log

__all__ = ["AuditOptions", "AuditReport", "audit_log"]
