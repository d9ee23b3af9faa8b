"""The public log's key: made once in the data directory and kept across restarts, or given; every way to give a
wrong one refused at start-up with a clear message."""

import stat
from pathlib import Path

import pytest

from server.config import ConfigError, Settings
from server.runtime.log_key import KEY_FILE, log_signer
from server.transparency.notes import COSIGNATURE_V1, generate_signer


def test_a_key_is_made_once_and_kept_across_restarts(tmp_path):
    settings = Settings(data_dir=tmp_path)
    first = log_signer(settings)
    assert first.name == "localhost/osmosis-log"
    assert log_signer(settings) == first, "a restart signs with the same key"
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600
    assert sorted(path.name for path in tmp_path.iterdir()) == [KEY_FILE]


def test_a_new_key_takes_the_configured_origin(tmp_path):
    assert log_signer(Settings(data_dir=tmp_path, log_origin="osmosis.example/log")).name == "osmosis.example/log"


def test_a_given_key_is_used_and_its_origin_must_match(tmp_path):
    given = generate_signer("osmosis.example/log")
    assert log_signer(Settings(data_dir=tmp_path, log_signing_key=given.skey)) == given
    assert not (tmp_path / KEY_FILE).exists()
    with pytest.raises(ConfigError, match="LOG_ORIGIN"):
        log_signer(Settings(data_dir=tmp_path, log_signing_key=given.skey, log_origin="other.example/log"))


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("PRIVATE+KEY+nonsense", "not a note signing key"),
        (generate_signer("witness.example/w", COSIGNATURE_V1).skey, "not a witness's"),
    ],
    ids=["nonsense", "a witness's key"],  # not the key: a run's workers collect the same names
)
def test_a_wrong_key_is_refused(tmp_path, key, message):
    with pytest.raises(ConfigError, match=message):
        log_signer(Settings(data_dir=tmp_path, log_signing_key=key))


def test_the_log_settings_are_read_from_the_environment(tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text(generate_signer("a.example/log").skey + "\n")
    witness = generate_signer("w.example/w1", COSIGNATURE_V1).verifier.vkey
    settings = Settings.from_env(
        {
            "LOG_SIGNING_KEY_FILE": str(key_file),
            "LOG_INTERVAL_MS": "250",
            "LOG_WITNESSES": f"{witness} https://w.example/, ",
        }
    )
    assert settings.log_signing_key == key_file.read_text().strip()
    assert settings.log_interval_seconds == 0.25
    assert settings.log_witnesses == ((witness, "https://w.example/"),)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"LOG_SIGNING_KEY_FILE": "/nonexistent/key"}, "LOG_SIGNING_KEY_FILE cannot be read"),
        ({"LOG_WITNESSES": "only-a-key"}, "LOG_WITNESSES"),
        ({"LOG_WITNESSES": "key ftp://w.example/"}, "LOG_WITNESSES"),
        ({"LOG_INTERVAL_MS": "5"}, "LOG_INTERVAL_MS must be at least 10"),
    ],
)
def test_bad_log_settings_are_refused(env, message):
    with pytest.raises(ConfigError, match=message):
        Settings.from_env(env)


def test_a_test_run_keeps_its_logs_keys_and_checkpoints_outside_the_project():
    """`make test` then `make serve` in one checkout: the server must not find, in the project's var/, a log key and a
    record of checkpoints that an in-process test app signed for a database of its own (the fork guard would then
    refuse to sign for the new database, rightly)."""
    project_data = (Path(__file__).resolve().parents[1] / "var").resolve()

    assert not Settings().data_dir.resolve().is_relative_to(project_data)


def test_the_data_directory_follows_osmosis_data_dir_else_var(monkeypatch, tmp_path):
    monkeypatch.setenv("OSMOSIS_DATA_DIR", str(tmp_path))
    assert Settings().data_dir == tmp_path
    monkeypatch.delenv("OSMOSIS_DATA_DIR")
    assert Settings().data_dir == Path("var")
