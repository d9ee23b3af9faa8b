"""The use cases of games: creating, acting (every command on a game), reading, sealing deals, analysing and
verifying, and what they share (the documents they show, Idempotency-Keys, cursors, the games a process keeps)."""
