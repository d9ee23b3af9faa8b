"""Your games' tokens on your machine: yours alone to read, never half written, none lost to a second table."""

import json
import multiprocessing
import stat

import pytest

from server.terminal.saved import KEPT, SavedGame, SavedGames, SavedGamesError, default_path


def game(n, server="http://a"):
    return SavedGame(server, f"id-{n}", f"token-{n}", "osmosis", f"2026-11-25T00:00:{n:02}")


def test_games_are_kept_per_server_newest_first_and_readable_by_you_alone(tmp_path):
    saved = SavedGames(tmp_path / "osmosis" / "games.json")
    saved.add(game(1))
    saved.add(game(2, server="http://b"))
    saved.add(game(3))
    assert [entry.id for entry in saved.on("http://a")] == ["id-3", "id-1"]
    assert saved.token_of("http://b", "id-2") == "token-2" and saved.token_of("http://a", "id-2") is None
    assert stat.S_IMODE(saved.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.path.parent.stat().st_mode) == 0o700


def test_only_the_newest_are_kept(tmp_path):
    saved = SavedGames(tmp_path / "games.json")
    for n in range(KEPT + 5):
        saved.add(game(n))
    assert len(saved.on("http://a")) == KEPT and saved.on("http://a")[0].id == f"id-{KEPT + 4}"


def test_a_file_that_is_not_saved_games_is_named_not_overwritten(tmp_path):
    path = tmp_path / "games.json"
    path.write_text("{not json")
    with pytest.raises(SavedGamesError, match="move it away"):
        SavedGames(path).add(game(1))
    assert path.read_text() == "{not json"


def _add_many(path, first):
    saved = SavedGames(path)
    for n in range(first, first + 20):
        saved.add(game(n))


def test_two_tables_adding_at_once_lose_nothing(tmp_path):
    path = tmp_path / "games.json"
    processes = [multiprocessing.Process(target=_add_many, args=(path, first)) for first in (0, 100)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(30)
    assert {entry["id"] for entry in json.loads(path.read_text())["games"]} == {
        f"id-{n}" for n in [*range(20), *range(100, 120)]
    }


def test_the_file_is_under_xdg_state_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_path() == tmp_path / "osmosis" / "games.json"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert default_path().parts[-4:] == (".local", "state", "osmosis", "games.json")


def test_a_lock_file_planted_as_a_link_is_refused_and_its_target_left_alone(tmp_path):
    path = tmp_path / "games.json"
    target = tmp_path / "elsewhere" / "precious"
    target.parent.mkdir()
    path.with_suffix(".lock").symlink_to(target)

    with pytest.raises(SavedGamesError, match="lock"):
        SavedGames(path).add(game(1))
    assert not target.exists() and not path.exists()


def test_a_directory_a_fifo_or_a_deep_nest_in_place_of_the_file_is_a_clear_error(tmp_path):
    import os

    directory = tmp_path / "a" / "games.json"
    directory.mkdir(parents=True)
    fifo = tmp_path / "b" / "games.json"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    deep = tmp_path / "c" / "games.json"
    deep.parent.mkdir()
    deep.write_text("[" * 100_000 + "]" * 100_000)
    huge = tmp_path / "d" / "games.json"
    huge.parent.mkdir()
    huge.write_text(json.dumps({"games": [], "pad": "x" * (2 * 1024 * 1024)}))

    for path, says in (
        (directory, "not a file"),
        (fifo, "not a file"),
        (deep, "nested too deep"),
        (huge, "larger than"),
    ):
        with pytest.raises(SavedGamesError, match=says):
            SavedGames(path).on("http://a")
        with pytest.raises(SavedGamesError):
            SavedGames(path).add(game(1))
