"""A decision's thinking budget in solver nodes: deterministic (a position's node count never varies), unlike a
clock, so a bot's choice still depends only on its view and its seed."""

from __future__ import annotations

from fairdeal.solver.dds import Position, Solution, solve


class Budget:
    """The nodes a decision may still search; each solve spends what it visited, and a solve the rest cannot
    finish comes back as ``None`` (the decision then stands on the layouts already solved)."""

    def __init__(self, nodes: int):
        self.left = nodes

    def solve(self, position: Position, count: int, maximisers: int, values: bool = False) -> Solution | None:
        if self.left <= 0:
            return None
        solution = solve(position, count, maximisers, values, node_limit=self.left)
        self.left -= solution.nodes
        if not solution.complete:
            self.left = 0
            return None
        return solution
