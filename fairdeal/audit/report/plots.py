"""The evidence over time as a person reads it: each dealer's e-process as "honest dealing reaches this about
1 in N times", hand by hand, with the level at which the audit flags and the hand where it first did.

By Ville's inequality an honest dealer's e-process ever reaches E with probability at most 1/E, so the y axis is
a chance, not a statistic; the flagged dealers are drawn in colour, the others in grey.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from fairdeal.audit.report.numbers import one_in
from fairdeal.audit.verdict import Verdict

TITLES = {
    "en": ("How unlikely honest dealing makes the talons seen so far", "hand", "chance under honest dealing"),
    "ru": ("Насколько маловероятны при честной сдаче уже виденные прикупы", "раздача", "шанс при честной сдаче"),
}
LEVEL = {"en": "flag level", "ru": "уровень подозрения"}
TICK = {"en": "1 in {n}", "ru": "1 из {n}"}
FROM = {"en": "{dealer}: flagged from hand {hand}", "ru": "{dealer}: под подозрением с раздачи {hand}"}


def evidence_figure(verdict: Verdict, lang: str) -> Figure:
    """The e-process of every dealer as a chance on a log scale (base 10 of 1/chance)."""
    title, xlabel, ylabel = TITLES[lang]
    figure, axes = plt.subplots(figsize=(8, 3.8))
    suspects = set(verdict.suspects())
    bar = verdict.eprocess_bar / math.log(10)
    top = bar
    for path in verdict.paths:
        heights = [max(v, 0.0) / math.log(10) for v in path.log_e]
        top = max(top, max(heights, default=0.0))
        flagged = path.dealer in suspects
        (line,) = axes.plot(
            path.hands,
            heights,
            label=path.dealer,
            color=None if flagged else "lightgrey",
            linewidth=2 if flagged else 1,
        )
        if flagged and path.eprocess_alarm is not None:
            axes.axvline(path.eprocess_alarm, color=line.get_color(), linestyle=":")
            axes.annotate(
                FROM[lang].format(dealer=path.dealer, hand=path.eprocess_alarm),
                (path.eprocess_alarm, bar),
                xytext=(4, 6),
                textcoords="offset points",
                color=line.get_color(),
                fontsize=8,
            )
    axes.axhline(bar, color="red", linestyle="--", label=LEVEL[lang])
    axes.set_ylim(0, max(top * 1.1, bar * 1.5))
    axes.yaxis.set_major_formatter(
        FuncFormatter(lambda y, _: "1" if y < 0.5 else TICK[lang].format(n=one_in(10.0**-y, lang)))
    )
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.legend(fontsize=8)
    return figure
