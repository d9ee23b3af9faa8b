"""The Analyses port: a finished game's analysis, kept once for each solver and budget."""

from tests.store.records import a_creation, a_game


def test_an_analysis_is_kept_for_its_solver_and_budget_and_the_first_stays(port_store):
    record, secret, events = a_game(status="lost")
    port_store.create_game(a_creation(record, secret, events), None)
    assert port_store.load_analysis(record.id, "osmosis-solver/1", 1000) is None

    port_store.save_analysis(record.id, "osmosis-solver/1", 1000, '{"verdict": "lost"}')
    port_store.save_analysis(record.id, "osmosis-solver/1", 1000, '{"verdict": "won"}')
    port_store.save_analysis(record.id, "osmosis-solver/1", 2000, '{"verdict": "won"}')

    assert port_store.load_analysis(record.id, "osmosis-solver/1", 1000) == '{"verdict": "lost"}'
    assert port_store.load_analysis(record.id, "osmosis-solver/1", 2000) == '{"verdict": "won"}'
    assert port_store.load_analysis(record.id, "osmosis-solver/2", 1000) is None
