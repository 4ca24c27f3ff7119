"""The benchmark positions live in the installed package (:mod:`search.bench.positions`,
used by ``mombasa bench``); this name stays for the suites, tests and scripts."""

from search.bench.positions import PASSIVE, mid_game, random_game

__all__ = ["PASSIVE", "mid_game", "random_game"]
