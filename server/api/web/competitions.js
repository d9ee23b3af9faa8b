// Competitions: the lists (upcoming, running, closed), announcing one, and one competition's page: its terms, a
// countdown, entering and withdrawing, the entrant's game, everyone's progress live (the competition's stream) and,
// once closed, the results with each game's replay and its verification.

import { api, apiToken } from "./api.js";
import { presetTitle } from "./board.js";
import { clockText } from "./figures.js";
import { remember } from "./lists.js";
import { showMe, whoAmI } from "./players.js";

const $ = (id) => document.getElementById(id);
const STATUS_WORDS = {
  entered: "not started", playing: "playing", won: "won", lost: "lost", resigned: "resigned", timed_out: "out of time",
};
const MINUTE = 60_000;

let shown = null;      // the competition this page shows
let rows = [];         // its standings or results, as last received
let results = false;   // whether `rows` are the results (each with its game)
let stream = null;     // the competition's stream while it runs
let ticking = null;

function element(tag, text = "", attributes = {}) {
  const made = Object.assign(document.createElement(tag), attributes);
  if (text) made.textContent = text;
  return made;
}

const when = (iso) => new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });

function terms(competition) {
  const clock = clockText(competition.limit_s);
  const format = competition.format === "race"
    ? `a race starting ${when(competition.starts_at)}`
    : `a window open ${when(competition.starts_at)} to ${when(competition.ends_at)}`;
  const field = competition.entrants === "bot" ? "bots" : "people";
  return `${presetTitle(competition.variant)}, ${format}; each clock ${clock}; for ${field}, ` +
    `${competition.entered} of ${competition.max_entrants.toLocaleString()} entered; hints ${competition.hints}.`;
}

// --- the lists -------------------------------------------------------------------------------------------

export async function showCompetitions() {
  stopCompetition();
  $("competitions-problem").textContent = "";
  const lists = { open: "competitions-open", running: "competitions-running", closed: "competitions-closed" };
  await Promise.all(Object.entries(lists).map(async ([status, id]) => {
    let found = [];
    try {
      found = (await api(`/competitions?status=${status}&limit=20`)).competitions;
      if (status === "closed") found = found.concat((await api("/competitions?status=final&limit=20")).competitions);
    } catch (error) {
      $("competitions-problem").textContent = error.message;
    }
    const items = found.map((competition) => {
      const item = element("li");
      item.append(element("a", competition.name, { href: `#competition=${competition.id}` }), ": ", terms(competition));
      return item;
    });
    $(id).replaceChildren(...(items.length ? items : [element("li", "None.")]));
  }));
}

async function announce(event) {
  event.preventDefault();
  $("organize-problem").textContent = "";
  const now = Date.now();
  const startsAt = new Date(now + Number($("competition-starts-in").value) * MINUTE);
  const body = {
    name: $("competition-name").value.trim(),
    format: $("competition-format").value,
    variant: $("competition-variant").value,
    entrants: $("competition-entrants").value,
    starts_at: startsAt.toISOString(),
    limit_s: Number($("competition-limit").value) * 60,
  };
  if (body.format === "window") {
    body.ends_at = new Date(startsAt.getTime() + Number($("competition-open-hours").value) * 60 * MINUTE).toISOString();
  }
  try {
    const made = await api("/competitions", { method: "POST", body });
    location.hash = `competition=${made.id}`;
  } catch (error) {
    $("organize-problem").textContent = apiToken() ? error.message : "Choose a name first: a competition is announced by a player.";
  }
}

// --- one competition -------------------------------------------------------------------------------------

export async function showCompetition(id) {
  stopCompetition();
  $("competition-problem").textContent = "";
  if (apiToken() && !whoAmI()) await showMe(); // a link followed straight here: who plays decides what may be done
  shown = await api(`/competitions/${id}`);
  $("competition-title").textContent = shown.name;
  document.title = `${shown.name} · Osmosis`;
  await load();
  ticking = setInterval(tick, 1000);
  tick();
}

async function load() {
  const closed = shown.status === "closed" || shown.status === "final";
  if (closed) {
    const answered = await api(`/competitions/${shown.id}/results`);
    shown = answered.competition;
    rows = answered.results;
    results = true;
    $("competition-root").textContent = `Standings root, as the public log holds it: ${answered.standings_root}` +
      (answered.final ? "" : " (the organizer may still amend the results)");
  } else {
    const answered = await api(`/competitions/${shown.id}/standings`);
    shown = answered.competition;
    rows = answered.standings;
    results = false;
    $("competition-root").textContent = "";
    follow();
  }
  render();
}

// Everyone's progress as it comes: the stream's first message is the standings, then each change to one row.
function follow() {
  if (stream || typeof EventSource === "undefined") return;
  stream = new EventSource(`/competitions/${shown.id}/stream`);
  stream.addEventListener("standings", (message) => {
    const data = JSON.parse(message.data);
    shown = data.competition;
    rows = data.standings;
    render();
  });
  for (const kind of ["entered", "started", "progress", "finished", "timed_out"]) {
    stream.addEventListener(kind, (message) => changed(JSON.parse(message.data), kind));
  }
  stream.addEventListener("withdrawn", (message) => {
    const gone = JSON.parse(message.data);
    rows = rows.filter((row) => row.player.name !== gone.player.name);
    render();
  });
  stream.addEventListener("closed", () => {
    stopStream();
    shown = { ...shown, status: "closed" };
    $("competition-status").textContent = "The competition has closed: the results are in.";
    load();
  });
}

function changed(row, kind) {
  rows = [...rows.filter((other) => other.player.name !== row.player.name), row].sort(
    (one, other) => (one.rank ?? Infinity) - (other.rank ?? Infinity),
  );
  if (kind === "finished" || kind === "timed_out") {
    $("competition-status").textContent = `${row.player.name} ${kind === "finished" ? row.status : "ran out of time"}` +
      ` with ${row.score} of 52 home.`;
  }
  render();
}

function mine() {
  const me = whoAmI();
  return me ? rows.find((row) => row.player.name === me.name) : undefined;
}

function render() {
  $("competition-terms").textContent = terms({ ...shown, entered: rows.length });
  $("standings-caption").textContent = results ? "Results" : "Standings, as play goes on";
  $("standings-rows").replaceChildren(...rows.map((row) => {
    const cells = [
      row.rank === null ? "struck" : String(row.rank),
      `${row.player.name}${row.player.kind === "bot" ? " (bot)" : ""}`,
      row.struck ? `${STATUS_WORDS[row.status]}, struck: ${row.struck}` : STATUS_WORDS[row.status],
      String(row.score),
      String(row.actions),
      clockText(Math.floor(row.elapsed_ms / 1000)),
    ].map((text) => element("td", text));
    const game = element("td");
    if (results && row.game_id) {
      const check = element("button", "Check", { type: "button" });
      const verdict = element("span", "", { role: "status" });
      check.addEventListener("click", async () => {
        verdict.textContent = " checking…";
        try {
          const checked = await api(`/games/${row.game_id}/verification`);
          verdict.textContent = checked.valid ? (checked.complete ? " VALID" : " valid so far") : ` INVALID: ${checked.reason}`;
        } catch (error) {
          verdict.textContent = ` ${error.message}`;
        }
      });
      game.append(element("a", "Replay", { href: `#replay=${row.game_id}` }), " ", check, verdict);
    }
    const line = element("tr");
    line.append(...cells, game);
    if (row.struck) line.classList.add("struck");
    return line;
  }));
  const me = whoAmI();
  const entered = mine() !== undefined;
  const started = Date.now() >= Date.parse(shown.starts_at);
  const entriesOpen = Date.now() < Date.parse(shown.entries_close_at) && !results;
  $("enter-competition").hidden = !me || entered || !entriesOpen;
  $("withdraw-competition").hidden = !entered || started || mine()?.status !== "entered";
  $("play-competition").hidden = !entered || !started || results || !["entered", "playing"].includes(mine()?.status);
  $("play-competition").textContent = mine()?.status === "playing" ? "Back to your game" : "Play your game";
}

function tick() {
  if (!shown) return;
  const now = Date.now();
  const startsAt = Date.parse(shown.starts_at);
  const endsAt = Date.parse(shown.ends_at);
  const left = (at) => clockText(Math.max(0, Math.ceil((at - now) / 1000)));
  let text;
  if (results) text = `Closed ${when(shown.closed_at ?? shown.ends_at)}.`;
  else if (now < startsAt) text = `Starts in ${left(startsAt)}`;
  else if (now < endsAt) text = shown.format === "race" ? `Race on: ${left(endsAt)} left` : `Open: closes in ${left(endsAt)}`;
  else text = "Closing: the results come within seconds.";
  $("competition-countdown").textContent = text;
  // The start and the end change what may be done: the buttons follow the clock, and the end brings the results.
  render();
  if (!results && now >= endsAt + 1000 && now % 3000 < 1000) load();
}

async function enter() {
  $("competition-problem").textContent = "";
  try {
    await api(`/competitions/${shown.id}/entries`, { method: "POST" });
    $("competition-status").textContent = "You are in: your clock starts " +
      (shown.format === "race" ? `with the race, ${when(shown.starts_at)}.` : "when you open your game.");
    await load();
  } catch (error) {
    $("competition-problem").textContent = error.problem?.code === "not-yet-logged"
      ? "Your sign-up is not in the public log yet: try again in a few seconds."
      : error.message;
  }
}

async function withdraw() {
  $("competition-problem").textContent = "";
  try {
    await api(`/competitions/${shown.id}/entries/me`, { method: "DELETE" });
    $("competition-status").textContent = "You have withdrawn.";
    await load();
  } catch (error) {
    $("competition-problem").textContent = error.message;
  }
}

async function play() {
  $("competition-problem").textContent = "";
  try {
    const game = await api(`/competitions/${shown.id}/game`, { method: "POST" });
    remember({ id: game.id, player_token: apiToken() }); // the entrant plays with their API token
    location.hash = `game=${game.id}`;
  } catch (error) {
    $("competition-problem").textContent = error.message;
  }
}

function stopStream() {
  stream?.close();
  stream = null;
}

export function stopCompetition() {
  stopStream();
  clearInterval(ticking);
  ticking = null;
  shown = null;
}

export function wireCompetitions(variants) {
  $("competition-variant").replaceChildren(...variants.map((variant) =>
    element("option", presetTitle(variant.name), { value: variant.name })));
  $("competition-format").addEventListener("change", () => {
    $("competition-window").hidden = $("competition-format").value !== "window";
  });
  $("new-competition").addEventListener("submit", announce);
  $("enter-competition").addEventListener("click", enter);
  $("withdraw-competition").addEventListener("click", withdraw);
  $("play-competition").addEventListener("click", play);
}
