"""A log as a witness sees it, and `osmosis witness` run as a real process."""

import base64
import http.client
import subprocess
import sys
from pathlib import Path

from server.transparency.merkle import consistency_proof, leaf_hash, subtrees_of, tree_hash
from server.transparency.notes import COSIGNATURE_V1, Checkpoint, generate_signer, sign_note

OSMOSIS = Path(sys.executable).with_name("osmosis")
LOG = generate_signer("log.example/osmosis")
WITNESS = generate_signer("witness.example/w1", COSIGNATURE_V1)
NOW = 1_790_000_000


class Log:
    """A log as the witness sees it: leaves, signed checkpoints of any size, consistency proofs between sizes."""

    def __init__(self, leaves=40, seed=b"", signer=LOG):
        self.leaves = [leaf_hash(seed + b"entry %d" % i) for i in range(leaves)]
        self.signer = signer

    def root(self, size):
        return tree_hash(size, subtrees_of(self.leaves))

    def checkpoint(self, size, root=None):
        return sign_note(Checkpoint(self.signer.name, size, root or self.root(size)).text, self.signer)

    def proof(self, old, new):
        return consistency_proof(old, new, subtrees_of(self.leaves)) if 0 < old < new else []

    def request(self, old, new, proof=None, note=None):
        lines = proof if proof is not None else self.proof(old, new)
        return (
            f"old {old}\n"
            + "".join(base64.b64encode(h).decode() + "\n" for h in lines)
            + "\n"
            + (note if note is not None else self.checkpoint(new))
        ).encode()


class WitnessProcess:
    def __init__(self, tmp_path: Path, logs=(LOG.verifier.vkey,), signer=WITNESS, port=0):
        self.key = tmp_path / "witness.key"
        self.key.write_text(signer.skey + "\n")
        self.state = tmp_path / "state.json"
        self.process = subprocess.Popen(
            [
                str(OSMOSIS),
                "witness",
                "--key",
                str(self.key),
                *(a for key in logs for a in ("--log", key)),
                "--state",
                str(self.state),
                "--listen",
                f"127.0.0.1:{port}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        banner = self.process.stdout.readline()
        assert banner.startswith(f"Witness {signer.name} on http://127.0.0.1:"), banner + self.process.stderr.read()
        self.url = banner.split()[-1]
        assert self.process.stdout.readline().strip().endswith(signer.verifier.vkey)
        self.port = int(self.url.rsplit(":", 1)[1])

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    def stop(self) -> int:
        self.process.terminate()
        return self.process.wait(timeout=10)
