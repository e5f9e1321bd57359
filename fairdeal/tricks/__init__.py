"""The cardsharp's catalogue and the simulated tables that use it.

Modules: ``plan`` (Goal, TrickPlan), ``runs`` (moving cards with card-by-card runs), the techniques (``stacking``,
``cuts``, ``dealing``, ``lazy``, ``weak_server``) collected in ``catalogue``, ``honest`` (fair dealers),
``table`` (simulated evenings written like real logs), ``power`` (hands ``fairdeal audit`` needs and its false
alarms), ``casebook`` (the pages in ``audit/``), ``render`` (the terminal demo),
``samples`` (the sample logs).
"""

from fairdeal.tricks.catalogue import TRICKS, get_trick
from fairdeal.tricks.plan import Goal, TrickPlan

__all__ = ["TRICKS", "Goal", "TrickPlan", "get_trick"]
