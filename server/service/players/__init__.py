"""Players: accounts with API tokens and no passwords, and what is theirs (docs/players.md).

`names` and `tokens` are the pure rules (what a name and a token may be); `accounts` the use cases of signing
up and managing tokens."""
