"""Tests of the features a dealer can steer (aces, a long suit, the talon's points or junk), per dealer and target,
with exact laws under uniform dealing: ``laws`` (per deal), ``fold`` (mergeable histograms), ``tests`` (verdict)."""
