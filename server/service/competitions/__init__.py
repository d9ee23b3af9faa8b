"""Competitions: an organizer announces one (its terms and its sealed deal's commitment, in the public log), players
enter it, each entrant plays their own game of the deal on their own clock, and the referee times games out and
closes the competition, rooting its standings in the public log (docs/competitions.md). The rules are the game's
(game/competitions.py, log/standings.py); these use cases apply them to the stored competitions."""
