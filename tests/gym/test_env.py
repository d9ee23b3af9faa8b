"""The Gymnasium environment: Gymnasium's own checker, the registered ids, seeds that are deal numbers, an
observation that never holds a hidden card (checked as the API's views are), a mask that is exactly the legal
actions, rewards that add up, and agents that play exactly as `osmosis simulate`'s players."""

import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from server.gym import ENV_IDS, MAX_EPISODE_STEPS
from server.gym.env import WIN_BONUS, OsmosisEnv
from server.gym.spaces import CELL, DEAL, HIDDEN, MAX_PASSES, RESIGN, WASTE, action_of, index_of, observe, observe_view
from server.rules import (
    DECK,
    PRESETS,
    apply,
    legal_actions,
    numbered_opening,
    preset,
    public_view,
)

PROJECT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", PRESETS)
def test_gymnasium_s_checker_passes_every_preset(name):
    check_env(gym.make(f"server.gym:{ENV_IDS[name]}", render_mode="ansi").unwrapped, skip_render_check=False)


def test_every_preset_has_a_registered_id_with_a_step_limit():
    assert ENV_IDS["osmosis"] == "Osmosis-v0" and ENV_IDS["osmosis-draw-one"] == "OsmosisDrawOne-v0"
    assert ENV_IDS["peek-till-dawn"] == "PeekTillDawn-v0"
    for name, env_id in ENV_IDS.items():
        env = gym.make(f"server.gym:{env_id}")
        assert env.unwrapped.preset == name and env.spec.max_episode_steps == MAX_EPISODE_STEPS


def opening_of(name, number):
    rules = preset(name)
    return numbered_opening(rules, number)


@pytest.mark.parametrize("number", [0, 7, 2**53 - 1])
def test_a_seed_is_the_deal_number_so_an_episode_is_a_shareable_deal(number):
    env = OsmosisEnv("osmosis")
    observation, info = env.reset(seed=number)
    assert info["deal_number"] == number and env.deal_number == number
    expected = observe(opening_of("osmosis", number))
    assert all(np.array_equal(observation[key], expected[key]) for key in expected)
    again, _ = env.reset(options={"deal_number": number})
    assert all(np.array_equal(again[key], expected[key]) for key in expected)


def test_without_a_seed_the_deals_come_from_the_env_s_generator():
    first, second = OsmosisEnv(), OsmosisEnv()
    first.reset(seed=None)
    second.reset(seed=None)
    first.np_random, second.np_random = np.random.default_rng(5), np.random.default_rng(5)
    assert first.reset()[1]["deal_number"] == second.reset()[1]["deal_number"]
    with pytest.raises(ValueError, match="deal number"):
        first.reset(seed=2**53)


def positions(name, count, seed):
    """Positions reached by random play on many deals, the openings included."""
    rng = random.Random(seed)
    found = []
    for number in range(count):
        state = opening_of(name, number)
        while state.outcome is None and len(found) < (number + 1) * 40:
            found.append(state)
            state = apply(state, rng.choice(legal_actions(state)))
    return found


def with_hidden_cards_shuffled(state, rng):
    """The same position as a player sees it, its face-down cards and stock in another order."""
    reserves = []
    for p, pile in enumerate(state.reserves):
        down = list(pile[: state.face_down(p)])
        rng.shuffle(down)
        reserves.append((*down, *pile[state.face_down(p) :]))
    stock = list(state.stock)
    rng.shuffle(stock)
    down = next((p for p in range(len(reserves)) if state.face_down(p)), None)
    if stock and down is not None:  # a face-down card and a stock card trade places: still the same view
        stock[0], reserves[down] = reserves[down][0], (stock[0], *reserves[down][1:])
    return replace(state, reserves=tuple(reserves), stock=tuple(stock))


@pytest.mark.parametrize("name", ["osmosis", "osmosis-strict-waste", "osmosis-ablage", "peek-till-dawn"])
def test_no_hidden_card_ever_reaches_an_observation(name):
    rng = random.Random(3)
    moved = 0
    for state in positions(name, 12, 1):
        hidden_elsewhere = with_hidden_cards_shuffled(state, rng)
        moved += hidden_elsewhere != state
        assert public_view(hidden_elsewhere) == public_view(state)
        seen, other = observe(state), observe(hidden_elsewhere)
        assert all(np.array_equal(seen[key], other[key]) for key in seen), "an observation depends on a hidden card"
    assert moved > 100, "the hidden cards were moved in too few positions to prove anything"


@pytest.mark.parametrize("name", ["osmosis", "osmosis-ablage", "bridesmaids"])
def test_every_observation_says_what_the_public_view_says(name):
    for state in positions(name, 8, 2):
        view, seen = public_view(state), observe(state)
        codes = {card.code: card.index for card in DECK}
        in_sight = {}
        for p, pile in enumerate(view["reserves"]):
            in_sight.update({codes[c]: (1 + p, len(pile["face_up"]) - 1 - i) for i, c in enumerate(pile["face_up"])})
        in_sight.update({codes[c]: (WASTE, len(view["waste"]) - 1 - i) for i, c in enumerate(view["waste"])})
        if view["cell"]:
            in_sight[codes[view["cell"]]] = (CELL, 0)
        for k, foundation in enumerate(view["foundations"]):
            in_sight.update({codes[c]: (7 + k, 0) for c in foundation["cards"]})
        for index in range(52):
            assert (seen["cards"][index], seen["depth"][index]) == in_sight.get(index, (HIDDEN, 0))
        assert seen["stock"] == view["stock_count"] and seen["live_waste"] == view["live_waste"]
        assert list(seen["face_down"][: len(view["reserves"])]) == [p["face_down"] for p in view["reserves"]]
        assert seen["pass_number"] == view["pass_number"]


def test_the_mask_is_exactly_the_legal_actions_and_never_all_zeros():
    """Episodes played through the environment, beside the same actions applied to the engine's position."""
    rng = random.Random(4)
    for number in range(6):
        env = OsmosisEnv("osmosis-ablage")
        _, info = env.reset(seed=number)
        state = opening_of("osmosis-ablage", number)
        while state.outcome is None:
            legal = [index_of(action) for action in legal_actions(state)]
            assert info["legal_actions"] == legal
            assert set(np.flatnonzero(info["action_mask"])) == set(legal)
            assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
            chosen = rng.choice(legal)
            state = apply(state, action_of(chosen))  # each is taken as it is numbered
            _, _, terminated, _, info = env.step(chosen)
            assert terminated == (state.outcome is not None) and "refused" not in info
        assert list(np.flatnonzero(info["action_mask"])) == [RESIGN] and info["legal_actions"] == []
        assert "refused" in env.step(RESIGN)[4], "a step on a game over changes nothing"


def test_resigning_is_legal_but_offered_in_the_mask_only_when_asked():
    offered = OsmosisEnv("osmosis", resign_in_mask=True)
    _, info = offered.reset(seed=2)
    assert info["action_mask"][RESIGN] == 1 and offered.action_masks()[RESIGN]

    env = OsmosisEnv("osmosis")
    _, info = env.reset(seed=2)
    assert info["action_mask"][RESIGN] == 0 and not env.action_masks()[RESIGN]
    _, _, terminated, _, info = env.step(RESIGN)
    assert terminated and info["status"] == "resigned"


def test_a_random_masked_agent_does_not_learn_to_resign_it_is_never_offered():
    env = OsmosisEnv("osmosis")
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    resigned = episodes = 0
    for _ in range(1000):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, _, info = env.step(action)
        if terminated:
            resigned += info["status"] == "resigned"
            episodes += 1
            _, info = env.reset()
    assert episodes > 0 and resigned == 0


def test_a_vector_environment_that_resets_on_the_next_step_never_sees_an_empty_mask():
    envs = gym.vector.SyncVectorEnv(
        [lambda: OsmosisEnv("osmosis-draw-one") for _ in range(3)], autoreset_mode=gym.vector.AutoresetMode.NEXT_STEP
    )
    _, infos = envs.reset(seed=7)
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(600):
        masks = infos["action_mask"]
        assert masks.any(axis=1).all(), "an all-zero mask: a masked policy has nothing to sample"
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        _, _, terminated, _, infos = envs.step(actions)
        finished += int(terminated.sum())
    assert finished > 0


def test_every_discrete_space_starts_at_zero_and_holds_every_pass_number():
    space = OsmosisEnv("osmosis").observation_space
    for name, part in space.spaces.items():
        if isinstance(part, gym.spaces.Discrete | gym.spaces.MultiDiscrete):
            assert np.all(part.start == 0), name
    assert space["pass_number"].contains(np.int64(MAX_PASSES)) and space["pass_number"].contains(np.int64(1))


def test_a_refused_action_changes_nothing_and_earns_nothing():
    env = OsmosisEnv("osmosis")
    observation, info = env.reset(seed=1)
    refused = next(i for i in range(RESIGN) if not info["action_mask"][i])
    after, reward, terminated, truncated, info_after = env.step(refused)
    assert (reward, terminated, truncated) == (0.0, False, False) and info_after["refused"]
    assert all(np.array_equal(after[key], observation[key]) for key in after)
    assert "refused" not in env.step(DEAL)[4]


def test_rewards_add_up_to_the_cards_home_and_the_win():
    for number in range(40):
        env = OsmosisEnv("bridesmaids")
        _, info = env.reset(seed=number)
        start, total, rng = info["cards_home"], 0.0, random.Random(number)
        while True:
            _, reward, terminated, _, info = env.step(rng.choice(info["legal_actions"]))
            total += reward
            if terminated:
                break
        won = info["status"] == "won"
        assert total == info["cards_home"] - start + (WIN_BONUS if won else 0.0)
        assert info["cards_home"] == 52 if won else info["cards_home"] < 52


def test_ansi_rendering_shows_only_what_a_player_sees():
    env = OsmosisEnv("osmosis", render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text.startswith("rules osmosis") and "## ## ##" in text and "stock 35 cards" in text
    assert OsmosisEnv("osmosis").render() is None
    with pytest.raises(ValueError):
        OsmosisEnv("osmosis", render_mode="human")


def test_step_before_reset_is_a_clear_error():
    with pytest.raises(RuntimeError, match="reset"):
        OsmosisEnv().step(DEAL)


@pytest.mark.parametrize("name", ["osmosis-draw-one", "bridesmaids"])
def test_the_example_agents_win_exactly_the_deals_osmosis_simulate_wins(name):
    done = subprocess.run(
        [sys.executable, str(PROJECT / "examples" / "gym_agents.py"), "--preset", name, "--games", "60", "--envs", "8"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=PROJECT,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(line.endswith("the same deals") for line in lines), done.stdout
    greedy_wins = int(lines[1].split()[2].split("/")[0])
    assert greedy_wins > 0, "a sample where the greedy agent wins nothing proves little"


def test_the_ten_line_agent_of_docs_clients_runs_as_printed():
    text = (PROJECT / "docs" / "clients.md").read_text()
    agent = text.split("Ten lines of agent:\n\n```python\n", 1)[1].split("```", 1)[0]
    assert len([line for line in agent.splitlines() if line.strip()]) <= 10
    done = subprocess.run([sys.executable, "-c", agent], capture_output=True, text=True, timeout=120, cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    status, cards_home, total = done.stdout.split()
    # Osmosis opens with its base card home: the rewards are the cards brought home after it, and the win.
    assert float(total) == int(cards_home) - 1 + (WIN_BONUS if status == "won" else 0.0)


@pytest.mark.parametrize("name", ["osmosis", "osmosis-ablage", "peek-till-dawn"])
def test_an_observation_of_the_api_s_view_equals_the_observation_of_the_position(name):
    for state in positions(name, 6, 5):
        local, remote = observe(state), observe_view(public_view(state))
        assert all(np.array_equal(local[key], remote[key]) for key in local)
