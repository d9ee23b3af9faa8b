"""A wheel of the project is a whole server: it carries the migrations and the gunicorn settings that a
checkout keeps at the top of the repository."""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import psycopg
import pytest

from server.store import migrate
from tests.databases import drop_database, empty_database

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory):
    """The project's wheel, built as pip builds it, unpacked as pip would install it. Built from a copy of
    the sources: setuptools builds in the source tree, and its build/ there would outlive the test."""
    sources = tmp_path_factory.mktemp("sources")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PROJECT / name, sources)
    for name in ("server", "migrations", "deploy", "docs"):
        shutil.copytree(PROJECT / name, sources / name, ignore=shutil.ignore_patterns("__pycache__"))
    built = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", built, sources],
        check=True,
        capture_output=True,
        timeout=300,
    )
    site = tmp_path_factory.mktemp("site-packages")
    with zipfile.ZipFile(next(built.glob("osmosis_server-*.whl"))) as wheel:
        wheel.extractall(site)
    return site


def test_the_wheel_migrates_a_database_and_finds_its_gunicorn_settings(installed_wheel, embedded_server_url):
    url = empty_database(embedded_server_url)
    script = (
        "import os, server, server.cli.main, server.store.migrate\n"
        "server.store.migrate.upgrade(os.environ['DATABASE_URL'])\n"
        "print(server.__file__, server.store.migrate.MIGRATIONS, server.cli.main.GUNICORN_CONFIG, sep='\\n')\n"
    )
    try:
        result = subprocess.run(
            [sys.executable, "-c", script],
            cwd=installed_wheel.parent,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "PYTHONPATH": str(installed_wheel), "DATABASE_URL": url},
        )
        assert result.returncode == 0, result.stderr[-3000:]
        with psycopg.connect(url) as conn:
            revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    finally:
        drop_database(embedded_server_url, url)

    package, migrations_dir, gunicorn_config = (Path(line) for line in result.stdout.splitlines())
    assert package.parent == installed_wheel / "server"  # the wheel's code, not the checkout's
    assert migrations_dir == installed_wheel / "server" / "migrations"
    assert gunicorn_config == installed_wheel / "server" / "deploy" / "gunicorn.conf.py" and gunicorn_config.is_file()
    assert revision == migrate.head_revision()


def test_the_wheel_carries_every_module_and_file_of_the_server(installed_wheel):
    checkout = PROJECT / "server"
    wanted = {
        path.relative_to(checkout) for path in checkout.rglob("*") if path.is_file() and "__pycache__" not in path.parts
    }
    carried = {
        path.relative_to(installed_wheel / "server")
        for path in (installed_wheel / "server").rglob("*")
        if path.is_file()
    }
    assert wanted - carried == set()


def test_the_wheel_carries_only_the_gunicorn_settings_of_deploy(installed_wheel):
    assert sorted(path.name for path in (installed_wheel / "server" / "deploy").iterdir()) == ["gunicorn.conf.py"]


def test_the_license_is_an_spdx_expression_that_setuptools_supports():
    import tomllib

    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())

    assert project["project"]["license"] == "MIT"
    requires = project["build-system"]["requires"]
    assert any(
        req.replace(" ", "").startswith("setuptools>=") and tuple(map(int, req.split(">=")[1].split(".")[:1])) >= (77,)
        for req in requires
    ), requires


def test_the_wheel_carries_the_guides_the_openapi_document_points_to(installed_wheel):
    guides = {path.name for path in (installed_wheel / "server" / "docs").iterdir()}

    assert guides == {path.name for path in (PROJECT / "docs").glob("*.md")}


def test_the_wheel_declares_its_license_in_the_metadata(installed_wheel):
    metadata = next(installed_wheel.glob("osmosis_server-*.dist-info")) / "METADATA"

    assert "License-Expression: MIT" in metadata.read_text()


def test_make_serve_installs_only_what_serving_needs_and_make_test_adds_the_test_tools(tmp_path):
    venv = tmp_path / "venv"

    serve = subprocess.run(["make", "-n", "serve", f"VENV={venv}"], cwd=PROJECT, capture_output=True, text=True)
    test = subprocess.run(["make", "-n", "test", f"VENV={venv}"], cwd=PROJECT, capture_output=True, text=True)

    installs = [line for line in serve.stdout.splitlines() if "pip install" in line and "--upgrade pip" not in line]
    assert installs and all("[test]" not in line for line in installs), serve.stdout
    assert any("[test]" in line for line in test.stdout.splitlines() if "pip install" in line), test.stdout
