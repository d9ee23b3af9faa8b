// A bot typed only by what openapi-typescript generates from openapi/openapi.json, calling the server
// through openapi-fetch: it reads the game, picks one of its legal actions and posts it as it is.
// Compiled by tsc --strict (tests/sdk): no non-null assertion and no type assertion anywhere.
// Usage: node dist/bot.js BASE_URL — plays a game and a custom-rules game, then signs up as a bot and plays today's
// daily deal with its API token; prints a JSON summary.
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api.js";

type Game = components["schemas"]["Game"];
type LegalAction = components["schemas"]["LegalAction"];
type Event = components["schemas"]["Event"];
type Problem = components["schemas"]["Problem"];

let waitedOut = 0;

// A 429 or 503 sent again after its Retry-After (the same request, so the same Idempotency-Key): docs/clients.md.
async function waitingOut(request: Request): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(request.clone());
    const notNow = response.status === 429 || response.status === 503;
    if (!notNow || attempt === 9) return response;
    waitedOut++;
    await new Promise((done) => setTimeout(done, 1000 * Number(response.headers.get("Retry-After") ?? "1")));
  }
}

function refused(problem: Problem): Error {
  return new Error(`${problem.status} ${problem.code}: ${problem.detail}`);
}

function chosen(actions: LegalAction[]): LegalAction | undefined {
  return actions.find((action) => action.kind === "move") ?? actions[0];
}

function described(event: Event): string {
  switch (event.kind) {
    case "card_played":
    case "card_moved_to_cell":
      return `${event.data.card} ${event.data.from}->${event.data.to}`;
    case "cards_dealt":
      return `dealt ${event.data.cards.join(" ")}`;
    case "game_won":
    case "game_lost":
      return `${event.kind} with ${event.data.score}`;
    default:
      return event.kind;
  }
}

// Up to `moves` actions, each the first move listed (else a deal or redeal), posted as listed; `log` gets their
// events in words.
async function playedOut(baseUrl: string, start: Game, headers: Record<string, string>, moves: number,
                         log: string[]): Promise<Game> {
  const client = createClient<paths>({ baseUrl, fetch: waitingOut });
  let game = start;
  for (let step = 0; step < moves && game.status === "playing"; step++) {
    const action = chosen(game.legal_actions);
    if (action === undefined) break;
    const result = await client.POST("/games/{game_id}/actions", {
      params: { path: { game_id: game.id } },
      headers,
      body: { action, expected_version: game.version },
    });
    if (result.error) throw refused(result.error);
    log.push(...result.data.events.map(described));
    game = result.data.game;
  }
  return game;
}

async function play(baseUrl: string, body: components["schemas"]["CreateGame"], moves: number) {
  const client = createClient<paths>({ baseUrl, fetch: waitingOut });
  const created = await client.POST("/games", { body });
  if (created.error) throw refused(created.error);
  const headers = { Authorization: `Bearer ${created.data.player_token}` };
  const log: string[] = [];
  let game = await playedOut(baseUrl, created.data, headers, moves, log);
  if (game.status === "playing") {
    const resigned = await client.POST("/games/{game_id}/actions", {
      params: { path: { game_id: game.id } },
      headers,
      body: { action: { kind: "resign" } },
    });
    if (resigned.error) throw refused(resigned.error);
    game = resigned.data.game;
  }
  const again = await client.POST("/games/{game_id}/actions", {
    params: { path: { game_id: game.id } },
    headers,
    body: { action: { kind: "deal" } },
  });
  const refusal = again.error ? `${again.error.status} ${again.error.code}` : "accepted";
  const events = await client.GET("/games/{game_id}/events", { params: { path: { game_id: game.id }, query: { limit: 1000 } } });
  if (events.error) throw refused(events.error);
  return { status: game.status, version: game.version, rules: game.rules, events: events.data.events.length,
           log, refused: refusal };
}

async function daily(baseUrl: string) {
  const client = createClient<paths>({ baseUrl, fetch: waitingOut });
  const name = `ts-bot-${Math.random().toString(36).slice(2, 12)}`;
  const made = await client.POST("/players", { body: { name, kind: "bot" } });
  if (made.error) throw refused(made.error);
  const headers = { Authorization: `Bearer ${made.data.token}` };
  const today = await client.GET("/daily", { headers });
  if (today.error) throw refused(today.error);
  const deal = today.data.deals.find((each) => each.variant === "peek");
  const created = await client.POST("/games", { body: { variant: "peek", daily: true }, headers });
  if (created.error) throw refused(created.error);
  const game = await playedOut(baseUrl, created.data, headers, Infinity, []);
  const again = await client.POST("/games", { body: { variant: "peek", daily: true }, headers });
  const stranger = await client.GET("/games/{game_id}", { params: { path: { game_id: game.id } } });
  return {
    kind: made.data.player.kind,
    owner: game.player?.name === name,
    day: game.deal.kind === "daily" && game.deal.day === today.data.day,
    commitment: game.commitment === deal?.commitment,
    status: game.status,
    again: again.error ? `${again.error.status} ${again.error.code}` : "made",
    stranger: stranger.error ? `${stranger.error.status} ${stranger.error.code}` : "read",
  };
}

async function main(baseUrl: string): Promise<void> {
  const client = createClient<paths>({ baseUrl, fetch: waitingOut });
  const variants = await client.GET("/variants");
  if (variants.error) throw refused(variants.error);
  const drawOne = await play(baseUrl, { variant: "osmosis-draw-one", deal_number: 0 }, 1000);
  const custom = await play(baseUrl, { rules: { draw: 1, max_passes: 3 }, deal_number: 1 }, 5);
  console.log(JSON.stringify({ variants: variants.data.variants.length, drawOne, custom, daily: await daily(baseUrl),
                               waitedOut }));
}

main(process.argv[2] ?? "http://127.0.0.1:8000").catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
