"""The game's home: a command in, one change out.

Between the rules and the move log below and the use cases above: a game's records (`records.py`, who calls in
`callers.py`), the commands it takes as values (`commands.py`), its one decision, `decide(game, command, now) ->
Change`, and a creation's (`deciding.py`), the change itself (`change.py`), the document the API shows
(`document.py`), a daily game's day (`days.py`), what a finished game counts for its player (`results.py`) and its own
refusals (`errors.py`). Pure, like the rules: no Flask, no SQL, no clock (times are given), no I/O.
"""
