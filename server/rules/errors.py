"""The errors the rules engine raises.

Malformed input (a card code that does not exist, a pile out of range, a nonsense rule set) and an
illegal action (well formed, but not allowed in this position) are different errors, so that a caller
can tell "you wrote it wrong" from "the rules forbid it".
"""


class RulesError(ValueError):
    """Base class for every error the rules engine raises."""


class InvalidInput(RulesError):
    """Raised when a card, place, action or position text is not well formed, e.g. "QX" or "R7"."""


class InvalidRules(RulesError):
    """Raised when a rule set is not one the game can be played with, e.g. draw=2."""


RULES_THAT_REFUSE = (
    "not-available",
    "wrong-source",
    "group-waste",
    "suit",
    "osmosis",
    "start-order",
    "base-rank",
    "no-cell",
    "cell-occupied",
    "stock-empty",
    "stock-not-empty",
    "waste-empty",
    "no-passes-left",
    "game-over",
    "nothing-to-undo",
    "undo-in-daily",
    "undo-limit",
    "log-full",
)
"""Every `rule` an IllegalAction names (docs/rules.md, "Why an action is refused"); the last four the game decides
(server/game), not the rules: three refuse an undo, the last any command a full log has no room for."""


class IllegalAction(RulesError):
    """Raised when a well-formed action is not allowed in the current position.

    `rule` is a stable identifier of the rule that forbids it (see docs/rules.md), so that a client can
    switch on it; the message says the same in words and names the cards.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


class GameOver(IllegalAction):
    """Raised when any action is attempted on a finished game."""

    def __init__(self, message: str) -> None:
        super().__init__("game-over", message)
