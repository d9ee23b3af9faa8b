"""What a player may see of a position (rules.md, "What a player may see"), as JSON-ready data."""

from __future__ import annotations

from typing import Any

from .state import GameState


def public_view(state: GameState) -> dict[str, Any]:
    """Face-up cards, counts of face-down and stock cards, and nothing hidden.

    Face-down reserve cards, the stock's order and the deal's secret are left out by construction: this
    function never reads a face-down card or the stock's cards, only their numbers.
    """
    return {
        "reserves": [
            {"face_down": state.face_down(p), "face_up": [card.code for card in pile[state.face_down(p) :]]}
            for p, pile in enumerate(state.reserves)
        ],
        "foundations": [
            {"suit": foundation[0].suit.value if foundation else None, "cards": [card.code for card in foundation]}
            for foundation in state.foundations
        ],
        "base_rank": str(state.base_rank),
        "stock_count": len(state.stock),
        "waste": [card.code for card in state.waste],
        "live_waste": state.live_waste,
        "cell": str(state.cell) if state.cell is not None else None,
        "pass_number": state.pass_number,
        "passes_left": state.passes_left,
        "status": state.status.value,
        "end_reason": state.outcome.reason if state.outcome is not None else None,
    }
