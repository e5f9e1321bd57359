"""Play-based collusion signals: defenders' double-dummy accuracy per (defender, declarer) and whisting decisions
that favour one opponent («на лапу»), each tested against the same player's play against the others."""
