"""A self-contained HTML audit report: the verdict in sentences, the evidence hands with their cards, then tables
and plots embedded as base64 PNG.

Plots: the evidence over time as a chance under honest dealing (``report.plots``); each dealer's talon-ace rate
with an exact (Clopper-Pearson) 95% interval against the honest rate; a QQ plot of every test's p-value against the
uniform law (honest tests lie on the diagonal); each dealer's CUSUM and e-process path with its threshold and the
hand where it first crossed; each dealer's guessing score against its exact law under a uniform shuffle.
"""

from __future__ import annotations

import base64
import html
import io
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats as sps

from fairdeal.audit.quality import guessing_null
from fairdeal.audit.report.drawing import HAND_STYLE, hand_html
from fairdeal.audit.report.narrative import beneficiary_pairs, narrate
from fairdeal.audit.report.plots import evidence_figure
from fairdeal.audit.report.shuffles import bits_words, record_words
from fairdeal.audit.run import AuditResult
from fairdeal.audit.verdict import CERTAIN_FINDINGS, Verdict, targeting_row
from fairdeal.deal import get_pattern

if TYPE_CHECKING:
    from matplotlib.figure import Figure

STYLE = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
th{background:#f3f3f3}.flag{color:#b00;font-weight:bold}.ok{color:#070}img{max-width:100%}code{font-size:.9em}
.verdict p{margin:.4em 0}.verdict .limits{color:#555}"""


def _png(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def ace_rate_plot(verdict: Verdict) -> str:
    figure, axes = plt.subplots(figsize=(7, 3.5))
    pattern = get_pattern(verdict.pattern)
    honest = 4 / pattern.deck.size
    for i, path in enumerate(verdict.paths):
        cards = path.deals * path.talon_cards
        interval = sps.binomtest(path.talon_aces, cards).proportion_ci(0.95, method="exact")
        rate = path.talon_aces / cards
        axes.errorbar([i], [rate], yerr=[[rate - interval.low], [interval.high - rate]], fmt="o", capsize=6)
    axes.axhline(honest, color="grey", linestyle="--", label=f"honest rate 4/{pattern.deck.size}")
    axes.set_xticks(range(len(verdict.paths)), [p.dealer for p in verdict.paths])
    axes.set_ylabel("aces per talon card")
    axes.set_title("Talon-ace rate per dealer (exact 95% Clopper-Pearson interval)")
    axes.legend()
    return _png(figure)


def qq_plot(verdict: Verdict) -> str:
    figure, axes = plt.subplots(figsize=(5, 5))
    p = np.sort(np.array([max(t.pvalue, 1e-300) for t in verdict.tests]))
    expected = (np.arange(1, len(p) + 1) - 0.5) / max(len(p), 1)
    axes.scatter(-np.log10(expected), -np.log10(p), s=12)
    top = max(float(-np.log10(expected).max(initial=1)), 1.0)
    axes.plot([0, top], [0, top], color="grey", linestyle="--", label="uniform (all honest)")
    axes.set_xlabel("expected -log10 p")
    axes.set_ylabel("observed -log10 p")
    axes.set_title(f"QQ plot of the {len(p)} tests' p-values")
    axes.legend()
    return _png(figure)


def paths_plot(verdict: Verdict) -> str:
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for path in verdict.paths:
        (line,) = top.plot(path.hands, path.cusum, label=path.dealer)
        bottom.plot(path.hands, path.log_e, color=line.get_color(), label=path.dealer)
        for axes, alarm in ((top, path.cusum_alarm), (bottom, path.eprocess_alarm)):
            if alarm is not None:
                axes.axvline(alarm, color=line.get_color(), linestyle=":")
                axes.annotate(
                    f"{path.dealer}: hand {alarm}",
                    (alarm, axes.get_ylim()[1] * 0.9),
                    color=line.get_color(),
                    fontsize=8,
                )
    top.axhline(verdict.cusum_threshold, color="red", linestyle="--", label="CUSUM threshold")
    bottom.axhline(verdict.eprocess_bar, color="red", linestyle="--", label="e-process bar log(dealers/alpha)")
    top.set_ylabel("CUSUM")
    bottom.set_ylabel("log e-value")
    bottom.set_xlabel("hand number")
    top.set_title("When each dealer became suspicious (dotted: first alarm)")
    top.legend(fontsize=8)
    bottom.legend(fontsize=8)
    return _png(figure)


def quality_plot(verdict: Verdict) -> str:
    """Each dealer's cyclic guessing score against its exact law under a uniform shuffle."""
    figure, axes = plt.subplots(figsize=(8, 3.8))
    dealers = [q for q in verdict.quality_dealers if q.measured]
    null = guessing_null(len(dealers[0].guessing_counts) - 1).pmf
    scores = np.arange(len(null))
    axes.bar(scores, null, color="lightgrey", label="uniform shuffle (exact)")
    for q in dealers:
        counts = np.array(q.guessing_counts, dtype=float)
        axes.plot(scores, counts / counts.sum(), marker="o", markersize=3, label=f"{q.dealer} ({q.measured} hands)")
    axes.set_xlabel("cards guessed by someone who knew the gathered order (cyclic, forgiving cuts)")
    axes.set_ylabel("share of hands")
    axes.set_title("Guessing score per dealer against its exact law under honest shuffling")
    axes.legend(fontsize=8)
    return _png(figure)


def _quality_section(v: Verdict) -> list[str]:
    if not v.quality_dealers:
        return ["<h2>Shuffle quality</h2><p>no logged shuffle was read</p>"]
    names = ("cyclic_preserved", "cyclic_reversed", "cyclic_longest_block", "cyclic_rising", "cyclic_guessing")
    rows = [
        [
            html.escape(q.dealer),
            str(q.read),
            html.escape(record_words(q, "en")),
            html.escape(bits_words(q, "en")),
            str(q.measured),
            *(f"{q.means[n]:.2f}" if q.measured else "-" for n in names),
        ]
        for q in v.quality_dealers
    ]
    parts = [
        "<h2>Shuffle quality</h2>",
        _table(
            [
                "dealer",
                "shuffles read",
                "how logged",
                "chance left unlogged (mean)",
                "fully logged",
                "preserved",
                "reversed",
                "longest block",
                "rising sequences",
                "guessing score",
            ],
            rows,
        ),
        "<p>Measures forgive cuts (cyclic, rotation-invariant) and are means over fully logged shuffles.</p>",
    ]
    if any(q.measured for q in v.quality_dealers):
        parts.append(f"<img alt='guessing score per dealer' src='data:image/png;base64,{quality_plot(v)}'>")
    return parts


def _targeting_section(v: Verdict) -> list[str]:
    if v.targeting is None:
        return []
    c = v.targeting.columns
    order = np.argsort(c["p"], kind="stable")[:30]
    rows = [[html.escape(cell) for cell in targeting_row(v, int(i))] for i in order]
    return [
        (
            f"<h2>Hands least likely from their gathered order</h2><p>{len(v.targeting):,} hands "
            "tested; the 30 smallest p-values (all in the JSON report).</p>"
        ),
        _table(
            [
                "hand",
                "dealer",
                "talon aces",
                "p",
                "BH q",
                "same effort p",
                "its talon p",
                "cross-match p",
                "its talon p",
            ],
            rows,
        ),
    ]


def _table(head: list[str], rows: list[list[str]]) -> str:
    cells = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return "<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>" + cells + "</table>"


def _verdict_section(result: AuditResult, lang: str) -> list[str]:
    """The verdict in sentences: the headline, the evidence, who benefited, the findings, the limits."""
    n = narrate(result, lang)
    e = html.escape
    parts = ["<div class='verdict'>", f"<p class='{'ok' if result.verdict.clean else 'flag'}'>{e(n.headline)}</p>"]
    parts += [f"<p>{e(s)}</p>" for s in (*n.evidence, *n.benefit, *n.findings)]
    parts += [f"<p class='limits'>{e(s)}</p>" for s in n.limits]
    return [*parts, "</div>"]


def _hands_section(result: AuditResult, lang: str) -> list[str]:
    hands = result.evidence.hands if result.evidence is not None else ()
    if not hands:
        return []
    heading = "The hands that carry the evidence" if lang == "en" else "Раздачи, несущие улики"
    return [f"<h2>{heading}</h2>", *(hand_html(h, lang) for h in hands)]


def _evidence_plot(v: Verdict, lang: str) -> str:
    heading = "The evidence over time" if lang == "en" else "Улики во времени"
    if not v.paths:
        return ""
    return (
        f"<h2>{heading}</h2><img alt='evidence over time' src='data:image/png;base64,{_png(evidence_figure(v, lang))}'>"
    )


def render_html(result: AuditResult, title: str, lang: str = "en") -> str:
    v = result.verdict
    e = html.escape
    suspects = [
        [
            e(name),
            "; ".join(e(f"{t.test}: p = {t.pvalue:.3g}, Holm {t.holm:.3g}") for t in v.flagged() if t.dealer == name)
            or "findings below",
        ]
        for name in v.suspects()
    ]
    sequential = [
        [e(p.dealer), str(p.deals), str(p.talon_aces), str(p.cusum_alarm or "-"), str(p.eprocess_alarm or "-")]
        for p in v.paths
    ]
    findings = [
        [
            str(line),
            str(hand),
            e(who),
            e(f.kind),
            e(f.message) + ("<br><i>explained by: " + e("; ".join(f.explanations)) + "</i>" if f.explanations else ""),
        ]
        for line, hand, who, f in v.findings
        if f.kind in CERTAIN_FINDINGS
    ][:300]
    tests = [
        [e(t.subject), e(t.test), str(t.count), f"{t.pvalue:.3g}", f"{t.holm:.3g}", f"{t.bh:.3g}", e(t.null)]
        for t in sorted(v.tests, key=lambda t: t.pvalue)
    ]
    parts = [
        (
            f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>"
            f"<style>{STYLE}\n{HAND_STYLE}</style></head><body>"
        ),
        f"<h1>Audit of {e(title)}</h1>",
        (
            f"<p>{v.hands:,} hands of {e(', '.join(v.players))}; pattern {e(v.pattern)}, {e(v.dealing)} dealing; "
            f"{v.malformed_count} malformed line(s); {len(v.tests)} tests under Holm (family-wise) and "
            f"Benjamini-Hochberg control.</p>"
        ),
        *_verdict_section(result, lang),
        *_hands_section(result, lang),
        _evidence_plot(v, lang),
        "<h2>Suspicious dealers</h2>",
        _table(["dealer", "evidence"], suspects) if suspects else "<p>none</p>",
        "<h2>Players whose hands were too strong</h2><p>"
        + (e(", ".join(f"{p} (dealt by {d})" for d, p in beneficiary_pairs(v))) or "none")
        + "</p>",
        "<h2>Players named by a rules breach</h2><p>" + (e(", ".join(v.rule_breakers())) or "none") + "</p>",
        f"<h2>Talon aces</h2><img alt='talon-ace rate per dealer' src='data:image/png;base64,{ace_rate_plot(v)}'>",
        "<h2>When each dealer became suspicious</h2>",
        _table(["dealer", "deals", "talon aces", "CUSUM alarm at hand", "e-process alarm at hand"], sequential),
        f"<img alt='sequential paths' src='data:image/png;base64,{paths_plot(v)}'>",
        f"<h2>All p-values</h2><img alt='p-value QQ plot' src='data:image/png;base64,{qq_plot(v)}'>",
        *_targeting_section(v),
        *_quality_section(v),
        "<h2>Findings</h2>",
        _table(["line", "hand", "who", "kind", "what"], findings) if findings else "<p>none</p>",
        "<p>Counts by kind: "
        + e(", ".join(f"{k}: {c}" for k, c in sorted(v.finding_counts.items())) or "none")
        + "</p>",
        "<h2>Tests</h2>",
        _table(["subject", "test", "n", "p", "Holm", "BH", "null model"], tests),
        "<h2>Malformed lines</h2>",
        "<ul>" + "".join(f"<li><code>{e(m)}</code></li>" for m in v.malformed) + "</ul>"
        if v.malformed
        else "<p>none</p>",
        "<h2>Notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in v.notes) + "</ul>",
        "</body></html>",
    ]
    return "\n".join(parts)
