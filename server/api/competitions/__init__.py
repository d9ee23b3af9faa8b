"""Competitions over HTTP: announcing, entering, the entrant's game, standings, results and amendments."""
