"""The public log never forks after a restore: a database behind, or diverging from, a checkpoint the log handed
out (kept beside its key, or cosigned by a witness) signs nothing and integrates nothing, and the checkpoint
served never goes back; the games go on, their entries pending."""

import pytest

from server.game.commands import NewGame
from server.rules import preset
from server.runtime.composition import compose
from server.runtime.log_files import CheckpointFile
from server.service.errors import LogBehind
from server.service.public_log.guard import ForkGuard, LogRefused
from server.service.public_log.log import PublicLog, published_note
from server.transparency.notes import generate_signer
from tests.memory_store import MemoryStore, backup_of

SIGNER = generate_signer("guard.example/log")


class Witness:
    """What a witness says it cosigned of the log (a note), or that it cannot be reached (an exception)."""

    def __init__(self, answer):
        self.answer, self.asked = answer, 0

    def names(self):
        return ["witness.example/w1"]

    def latest_cosigned(self, witness):
        self.asked += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def guarded(store, record=None, witness=None, place=None):
    records = [("the record beside its key", record)] if record is not None else []
    guard = ForkGuard(SIGNER.verifier, records, witness, place)
    log = PublicLog(store, store, SIGNER, spacing=0, records=[r for _, r in records], guard=guard)
    return log, compose(store, public_log=log)


def play(cases, games):
    for _ in range(games):
        cases.creating.handle(NewGame(preset("peek")))


def refused_at_two_turns(log, witness):
    """Two turns, each refused for want of a witness heard, each asking the witness again."""
    for asked in (1, 2):
        with pytest.raises(LogRefused, match="no witness has said yet which checkpoint of this log it cosigned"):
            log.sequence()
        assert witness.asked == asked, "a witness not heard from is asked again at every turn"


@pytest.fixture
def record(tmp_path):
    return CheckpointFile(tmp_path / "log-checkpoints.json")


def test_a_log_restored_behind_what_it_published_signs_nothing_and_serves_what_it_published(store, record):
    log, cases = guarded(store, record)
    play(cases, 2)
    backup_size = log.sequence().size
    backup = backup_of(store)
    play(cases, 3)
    last = log.sequence()
    served = published_note(log.checkpoint())
    assert record.signed().size == record.published().size == last.size > backup_size

    log, cases = guarded(backup, record)  # the server started again on the restored database
    play(cases, 1)  # games go on
    with pytest.raises(LogRefused, match="behind") as refused:
        log.sequence()
    assert (refused.value.size, refused.value.reference) == (backup_size, last.size)
    assert backup.latest_checkpoint().size == backup_size and backup.has_pending_entries()
    assert f"({backup_size} entries) is behind the record beside its key, of size {last.size}" in log.status()
    assert published_note(log.checkpoint()) == served, "the checkpoint served went back"
    game_id = next(iter(backup._games))
    with pytest.raises(LogBehind):
        log.game_proofs(game_id)


def test_a_log_restored_and_grown_past_what_it_published_over_other_entries_diverges(store, record):
    log, cases = guarded(store, record)
    play(cases, 2)
    log.sequence()
    backup = backup_of(store)
    play(cases, 2)
    last = log.sequence()

    unguarded, cases = guarded(backup)  # signed by a process that kept no record: the fork exists in its database
    play(cases, 3)
    assert unguarded.sequence().size > last.size
    play(cases, 1)

    log, _ = guarded(backup, record)
    size_before = backup.latest_checkpoint().size
    with pytest.raises(LogRefused, match=f"diverges from the record beside its key at size {last.size}"):
        log.sequence()
    assert backup.latest_checkpoint().size == size_before


def test_a_witness_holding_a_larger_checkpoint_stops_a_log_that_lost_its_record(store):
    log, cases = guarded(store)
    play(cases, 2)
    log.sequence()
    backup = backup_of(store)
    play(cases, 2)
    cosigned = log.sequence()

    witness = Witness(cosigned.note)
    log, cases = guarded(backup, witness=witness)
    play(cases, 1)
    with pytest.raises(LogRefused, match="behind the checkpoint witness witness.example/w1 cosigned"):
        log.sequence()
    with pytest.raises(LogRefused):
        log.sequence()
    assert witness.asked == 1, "a witness heard once is not asked again"


def test_a_log_listing_witnesses_signs_nothing_until_one_says_what_it_cosigned(store, record):
    witness = Witness(OSError("connection refused"))
    log, cases = guarded(store, record, witness)
    play(cases, 1)
    refused_at_two_turns(log, witness)
    assert "no witness has said yet" in log.status()
    assert store.latest_checkpoint() is None and store.has_pending_entries()
    witness.answer = None  # it cosigned nothing of this log yet
    assert log.sequence() is not None and witness.asked == 3
    play(cases, 1)
    assert log.sequence() is not None and witness.asked == 3, "a witness heard once is not asked again"
    assert log.status() == "ok"


def test_a_witness_away_at_a_restart_does_not_let_a_log_that_lost_its_record_fork(store):
    """The issue's attack: the record lost, the witness unreachable for the first seconds after the restart."""
    log, cases = guarded(store, witness=Witness(None))
    play(cases, 2)
    log.sequence()
    backup = backup_of(store)
    play(cases, 3)
    cosigned = log.sequence()

    witness = Witness(OSError("timed out"))
    log, cases = guarded(backup, witness=witness)
    play(cases, 5)  # enough entries to sign a tree larger than the one cosigned, over other entries
    with pytest.raises(LogRefused, match="no witness has said yet"):
        log.sequence()
    witness.answer = cosigned.note  # it answers again
    with pytest.raises(LogRefused, match="behind the checkpoint witness witness.example/w1 cosigned"):
        log.sequence()
    assert backup.latest_checkpoint().size < cosigned.size, "a checkpoint was signed over the one cosigned"


def test_instances_sharing_a_database_each_with_its_record_go_on(store, tmp_path):
    first, first_cases = guarded(store, CheckpointFile(tmp_path / "a.json"))
    second, second_cases = guarded(store, CheckpointFile(tmp_path / "b.json"))
    for _ in range(3):
        play(first_cases, 2)
        assert first.sequence() is not None
        play(second_cases, 3)
        assert second.sequence() is not None  # its record is behind the database, never ahead: it agrees
    assert first.status() == second.status() == "ok"


def test_an_instance_keeping_its_record_elsewhere_than_the_deployment_s_signs_nothing(store, tmp_path):
    first, first_cases = guarded(store, CheckpointFile(tmp_path / "a.json"), place="place-of-the-tiles")
    second, second_cases = guarded(store, CheckpointFile(tmp_path / "b.json"), place="a-data-directory-of-its-own")
    play(first_cases, 2)
    assert first.sequence() is not None
    play(second_cases, 2)
    with pytest.raises(LogRefused, match="every instance must share one LOG_TILES_DIR"):
        second.sequence()
    assert "another instance signs with a record this one cannot see" in second.status()
    assert first.sequence() is not None, "the instance keeping the deployment's record goes on"


def test_instances_sharing_the_deployment_s_record_never_fork_after_a_restore(store, tmp_path):
    """The issue's attack on separate records, with the record shared: whichever instance signs after the restore
    reads the checkpoints every instance signed."""
    shared = CheckpointFile(tmp_path / "tiles" / ".published.json")
    first, first_cases = guarded(store, shared, place="tiles")
    second, second_cases = guarded(store, shared, place="tiles")
    play(first_cases, 2)
    first.sequence()
    backup = backup_of(store)
    play(first_cases, 3)
    last = first.sequence()  # the first instance signed the larger tree; the second never did

    second, second_cases = guarded(backup, shared, place="tiles")
    play(second_cases, 5)
    with pytest.raises(LogRefused, match=f"behind the record beside its key, of size {last.size}"):
        second.sequence()


def test_a_log_recovered_to_its_record_signs_again(store, record):
    log, cases = guarded(store, record)
    play(cases, 2)
    log.sequence()
    backup = backup_of(store)
    play(cases, 1)
    log.sequence()

    log, cases = guarded(backup, record)
    with pytest.raises(LogRefused):
        log.sequence()
    for name in ("_tiles", "_bundles", "_leaves", "_checkpoints", "_published", "_pending"):
        setattr(backup, name, type(getattr(store, name))(getattr(store, name)))  # what recovery brings back
    play(cases, 1)
    assert log.sequence() is not None
    assert log.status() == "ok"


def test_a_record_that_cannot_be_read_stops_the_log_and_nothing_older_is_served(store, record):
    log, cases = guarded(store, record)
    play(cases, 2)
    log.sequence()
    record.path.write_text("{")  # a disk's fault, or a hand's
    play(cases, 1)
    with pytest.raises(LogRefused, match="its record of what it handed out cannot be read"):
        log.sequence()
    assert "cannot be read" in log.status()
    with pytest.raises(LogBehind, match="cannot be read"):
        log.checkpoint()


def test_a_process_whose_key_did_not_sign_the_log_says_so_and_signs_nothing(store, record):
    log, cases = guarded(store, record)
    play(cases, 2)
    log.sequence()
    stranger = generate_signer("guard.example/log")  # its key file lost: a new key of the same name was made
    guard = ForkGuard(stranger.verifier, [("the record beside its key", record)])
    other = PublicLog(store, store, stranger, spacing=0, records=[record], guard=guard)
    refusal = other.key_refusal()
    assert refusal is not None and "another key signed" in refusal and "LOG_SIGNING_KEY" in refusal
    assert other.status() == f"it signs nothing: {refusal}"
    assert log.key_refusal() is None and log.status() == "ok"


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("<html><body>Down for maintenance</body></html>", "is not a checkpoint of this log"),
        (
            "guard.example/log\n1000000\n" + "A" * 43 + "=\n\n\u2014 guard.example/log AAAAAAAAAA==\n",
            "is not a checkpoint",
        ),
        (ValueError("it answered 404: 404 page not found"), "404 page not found"),
    ],
    ids=["a maintenance page", "a made-up checkpoint of size 1,000,000", "a 404 of a mistyped URL"],
)
def test_a_witness_that_says_nothing_a_witness_says_is_not_heard_and_the_log_says_why(store, record, answer, said):
    witness = Witness(answer)
    log, cases = guarded(store, record, witness)
    play(cases, 1)

    refused_at_two_turns(log, witness)

    assert store.latest_checkpoint() is None
    assert "witness.example/w1" in log.status() and said in log.status()


def test_a_witness_claiming_a_bigger_tree_of_this_log_than_it_could_have_is_an_error(store, record, caplog):
    """A note in this log's name with a signature its key did not make: what a fork's other side would look like."""
    forged = "guard.example/log\n1000000\n" + "A" * 43 + "=\n\n\u2014 guard.example/log AAAAAAAAAA==\n"
    log, cases = guarded(store, record, Witness(forged))
    play(cases, 1)

    with caplog.at_level("ERROR"), pytest.raises(LogRefused):
        log.sequence()

    assert any(
        r.levelname == "ERROR"
        and "witness.example/w1" in r.getMessage()
        and "not a checkpoint of this log" in r.getMessage()
        for r in caplog.records
    )


@pytest.mark.parametrize(
    "answer",
    ["<html><body>Down for maintenance</body></html>", ValueError("it answered 404: 404 page not found")],
    ids=["a page", "unreachable"],
)
def test_a_witness_saying_the_same_nothing_at_every_turn_is_logged_once_and_again_when_it_says_otherwise(
    store, record, caplog, answer
):
    witness = Witness(answer)
    log, cases = guarded(store, record, witness)
    play(cases, 1)

    with caplog.at_level("WARNING"):
        for _ in range(5):
            with pytest.raises(LogRefused):
                log.sequence()
        witness.answer = ValueError("connection refused") if isinstance(answer, str) else "<html>Back soon</html>"
        with pytest.raises(LogRefused):
            log.sequence()

    # What the guard says of the witness (the log's refusal, naming it too, is said when it changes, as ever).
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("witness witness.example/w1")]
    assert witness.asked == 6 and len(lines) == 2, lines
    assert ("connection refused" in lines[1]) == isinstance(answer, str)


class UnconfirmedCommits(MemoryStore):
    """A store whose commits land but cannot be confirmed while no synchronous standby answers: PostgreSQL has
    committed locally when it gives up waiting, and says so only as an error."""

    standby = True

    def sequence(self, limit, spacing, integrate):
        growth = super().sequence(limit, spacing, integrate)
        if growth is not None and not self.standby:
            raise RuntimeError("canceling wait for synchronous replication: committed locally, not confirmed")
        return growth

    def latest_checkpoint(self, *, confirmed=True):
        if confirmed and not self.standby:
            raise RuntimeError("no synchronous standby confirms what is read")
        return super().latest_checkpoint(confirmed=confirmed)


def test_a_checkpoint_committed_without_its_confirmation_is_handed_out_once_it_is_confirmed(record):
    """The commit's outcome is unknown, not a failure: the log says so, and hands the checkpoint out at the first turn
    a standby confirms it (issue 61: it stayed signed and never published while nothing else was written)."""
    store = UnconfirmedCommits()
    log, cases = guarded(store, record)
    play(cases, 1)
    first = log.sequence()
    store.standby = False
    play(cases, 1)

    with pytest.raises(RuntimeError, match="committed locally"):
        log.sequence()

    assert store.latest_checkpoint(confirmed=False).size == first.size + 1  # in the database, signed
    assert store.published_checkpoint().size == first.size and not log.caught_up()
    assert "cannot publish" in log.status() and "committed locally" in log.status()
    store.standby = True
    assert log.sequence() is None  # nothing new to sign: the turn hands out what was signed
    assert store.published_checkpoint().size == first.size + 1 == record.signed().size
    assert log.caught_up() and log.status() == "ok"


def test_a_checkpoint_another_instance_left_unpublished_is_handed_out_by_the_next_turn(record):
    """An instance that committed a checkpoint and went away before handing it out: the database holds it, unpublished,
    and no instance's own memory says so."""
    store = UnconfirmedCommits()
    log, cases = guarded(store, record)
    play(cases, 1)
    log.sequence()
    gone, gone_cases = guarded(store)
    play(gone_cases, 1)
    store.standby = False
    with pytest.raises(RuntimeError):
        gone.sequence()
    store.standby = True

    assert not log.caught_up(), "the database's latest checkpoint is not the one published"
    log.sequence()
    assert store.published_checkpoint() == store.latest_checkpoint() and log.caught_up()
