// The player: a name chosen once and its API token kept in this browser (no password), today's daily deals
// with the time left, a player's page, the boards, and the text of a daily result to share.

import { api, apiToken, keepApiToken } from "./api.js";
import { counted, presetTitle } from "./board.js";
import { timePlayed } from "./figures.js";
import { tableTitle } from "./lists.js";

const $ = (id) => document.getElementById(id);
const percent = (rate) => `${(rate * 100).toFixed(1)}%`;
let me = null; // the player this browser plays as, when it has a token
let countdown = null;

function element(tag, text = "", attributes = {}) {
  const made = Object.assign(document.createElement(tag), attributes);
  if (text) made.textContent = text;
  return made;
}

function link(text, href) {
  return element("a", text, { href });
}

export function whoAmI() {
  return me;
}

// Who plays in this browser: a name to choose, or the player and their token.
export async function showMe() {
  me = null;
  if (apiToken()) {
    try {
      me = await api("/players/me");
    } catch (error) {
      if (error.problem?.status === 401) keepApiToken(null); // revoked elsewhere: choose again, or paste another
      else $("me-problem").textContent = `Your account: ${error.message}`;
    }
  }
  $("sign-up").hidden = $("use-token").hidden = me !== null;
  $("signed-in").hidden = me === null;
  if (me) {
    $("me-name").textContent = me.name;
    $("my-profile").href = `#player=${encodeURIComponent(me.name)}`;
  }
}

async function signUp(event) {
  event.preventDefault();
  $("me-problem").textContent = "";
  try {
    const made = await api("/players", { method: "POST", body: { name: $("chosen-name").value.trim() } });
    keepApiToken(made.token);
    showToken(made.token, "Your API token, shown this once: keep it to play as yourself on another device.");
    await showMe();
    await showDaily();
  } catch (error) {
    $("me-problem").textContent = error.message;
  }
}

async function useToken(event) {
  event.preventDefault();
  $("me-problem").textContent = "";
  const given = $("pasted-token").value.trim();
  keepApiToken(given);
  await showMe();
  if (!me) {
    keepApiToken(null);
    $("me-problem").textContent = "That token opens no account: check that it was copied whole.";
    return;
  }
  $("pasted-token").value = "";
  await showDaily();
}

function showToken(token, why) {
  $("token-shown").hidden = false;
  $("token-why").textContent = why;
  $("token-value").value = token;
}

// Today's deals, one per preset: play one, or open the game you began; and the time left until midnight UTC.
export async function showDaily(onPlay = null) {
  let today;
  try {
    today = await api("/daily");
  } catch (error) {
    $("daily-list").replaceChildren(element("li", `Today's deals: ${error.message}`));
    return;
  }
  if (onPlay) showDaily.onPlay = onPlay;
  $("daily-day").textContent = today.day;
  $("daily-list").replaceChildren(...today.deals.map((deal) => {
    const item = element("li");
    item.append(element("span", `${presetTitle(deal.variant)}: `));
    if (deal.your_game) {
      item.append(link("your game", `#game=${deal.your_game}`));
    } else {
      const play = element("button", `Play today's ${presetTitle(deal.variant)}`, { type: "button", disabled: !me });
      play.addEventListener("click", () => showDaily.onPlay?.(deal.variant));
      item.append(play);
    }
    return item;
  }));
  $("daily-needs-name").hidden = me !== null;
  clearInterval(countdown);
  const tick = () => { $("daily-left").textContent = timeLeft(today.closes_at); };
  tick();
  countdown = setInterval(tick, 30_000);
}

function timeLeft(closesAt) {
  const minutes = Math.max(0, Math.floor((Date.parse(closesAt) - Date.now()) / 60_000));
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min left today (the day closes at midnight UTC)`;
}

// A player's page: their statistics per preset, and their recent games.
export async function showProfile(name) {
  const [player, recent] = await Promise.all([
    api(`/players/${encodeURIComponent(name)}`),
    api(`/players/${encodeURIComponent(name)}/games?limit=10`),
  ]);
  $("profile-name").textContent = `${player.name}${player.kind === "bot" ? " (bot)" : ""}`;
  $("profile-since").textContent = `Playing since ${player.created_at.slice(0, 10)}.`;
  $("profile-none").hidden = player.stats.length > 0;
  $("profile-stats").hidden = player.stats.length === 0;
  $("profile-rows").replaceChildren(...player.stats.map((stats) => {
    const row = element("tr");
    const interval = `${percent(stats.win_rate_interval.low)} to ${percent(stats.win_rate_interval.high)}`;
    const best = element("td");
    if (stats.best_win) best.append(link(`${stats.best_win.actions} actions`, `#replay=${stats.best_win.game_id}`));
    else best.textContent = stats.wins ? "none yet: every win had hints or undos" : "none yet";
    const games = stats.undone ? `${stats.games} (${stats.undone} with undos, not ranked)` : String(stats.games);
    row.append(element("th", presetTitle(stats.variant), { scope: "row" }), element("td", games),
      element("td", String(stats.wins)), element("td", `${percent(stats.win_rate)} (${interval})`),
      element("td", `${stats.daily_streak.current} (longest ${stats.daily_streak.longest})`), best);
    return row;
  }));
  $("profile-games").replaceChildren(...recent.games.map((game) => {
    const item = element("li", `${presetTitle(game.variant)}${game.deal.kind === "daily" ? ` daily ${game.deal.day}` : ""}: ` +
      `${game.status}, ${game.score} of 52 home `);
    item.append(link(game.status === "playing" ? "open" : "replay", `#${game.status === "playing" ? "game" : "replay"}=${game.id}`));
    return item;
  }));
}

// The boards: a day's board of a preset's daily deal (yesterday's by default), and the preset's all-time board.
export async function showBoards() {
  const variant = $("board-variant").value;
  const kind = $("board-kind").value;
  const day = $("board-day").value;
  $("boards-problem").textContent = "";
  try {
    const [daily, allTime] = await Promise.all([
      api(`/boards/daily/${day}?variant=${variant}&kind=${kind}&limit=20`),
      api(`/boards/${variant}?kind=${kind}&limit=20`),
    ]);
    $("daily-board-none").hidden = daily.rows.length > 0;
    $("daily-board-rows").replaceChildren(...daily.rows.map((row) => tableRow([
      String(row.rank), profileLink(row.player), row.won ? "won" : `${row.score} of 52`, String(row.hints),
      String(row.actions), link("replay", `#replay=${row.game_id}`)])));
    $("board-none").hidden = allTime.rows.length > 0;
    $("board-min-games").textContent = String(allTime.min_games);
    $("board-rows").replaceChildren(...allTime.rows.map((row) => tableRow([
      String(row.rank), profileLink(row.player), String(row.games), String(row.wins),
      `${percent(row.win_rate)} (at least ${percent(row.win_rate_interval.low)})`])));
  } catch (error) {
    $("boards-problem").textContent = error.message;
  }
}

function profileLink(player) {
  return link(player.name, `#player=${encodeURIComponent(player.name)}`);
}

function tableRow(cells) {
  const row = element("tr");
  for (const cell of cells) {
    const td = element("td");
    td.append(cell);
    row.append(td);
  }
  return row;
}

// A result to share, as text: the deal, how it went, hints, undos and actions, and no card named.
export function shareText(game, actions) {
  const result = game.status === "won" ? "won, 52 of 52 cards home"
    : `${game.status === "resigned" ? "resigned" : "lost"}, ${game.score} of 52 cards home`;
  const undos = game.undos ? `, ${counted(game.undos, "undo")} (not ranked)` : "";
  const deal = game.deal.kind === "daily" ? `Osmosis daily ${game.deal.day}, ${presetTitle(game.variant)}` : tableTitle(game);
  return `${deal}: ${result}, ${counted(game.hints, "hint")}${undos}, ${counted(actions, "action")}, ${timePlayed(game)}.`;
}

export function wirePlayers() {
  $("sign-up").addEventListener("submit", signUp);
  $("use-token").addEventListener("submit", useToken);
  $("show-token").addEventListener("click", () => showToken(apiToken(), "Your API token: paste it on another device to play as yourself there."));
  $("sign-out").addEventListener("click", async () => {
    keepApiToken(null);
    $("token-shown").hidden = true;
    await showMe();
    await showDaily();
  });
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  $("board-day").value = yesterday;
  $("board-day").max = yesterday;
  for (const id of ["board-variant", "board-kind", "board-day"]) $(id).addEventListener("change", showBoards);
}
