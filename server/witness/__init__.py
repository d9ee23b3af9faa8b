"""A C2SP tlog-witness: it cosigns a log's checkpoints once it has checked each is consistent with the last."""
