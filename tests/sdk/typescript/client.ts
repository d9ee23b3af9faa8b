// A third party's client, typed only by what openapi-typescript generates from openapi/openapi.json.
// Usage: node dist/client.js BASE_URL — plays a short game and prints a JSON summary.
import type { components, operations } from "./generated/api.js";

type Schemas = components["schemas"];
type CreateGameBody = NonNullable<operations["createGame"]["requestBody"]>["content"]["application/json"];
type MoveBody = operations["playMove"]["requestBody"]["content"]["application/json"];
type Problem = Schemas["Problem"];

class OsmosisClient {
  constructor(private readonly baseUrl: string, private token?: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.token) headers["Authorization"] = `Bearer ${this.token}`;
    const response = await fetch(this.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const data: unknown = await response.json();
    if (!response.ok) {
      const problem = data as Problem;
      throw new Error(`${problem.status} ${problem.code}: ${problem.detail}`);
    }
    return data as T;
  }

  variants(): Promise<Schemas["VariantList"]> {
    return this.call("GET", "/variants");
  }

  async createGame(body: CreateGameBody): Promise<Schemas["CreatedGame"]> {
    const game = await this.call<Schemas["CreatedGame"]>("POST", "/games", body);
    this.token = game.player_token;
    return game;
  }

  draw(gameId: string): Promise<Schemas["ActionResult"]> {
    return this.call("POST", `/games/${gameId}/draw`, {});
  }

  move(gameId: string, move: MoveBody): Promise<Schemas["ActionResult"]> {
    return this.call("POST", `/games/${gameId}/moves`, move);
  }

  resign(gameId: string): Promise<Schemas["ActionResult"]> {
    return this.call("POST", `/games/${gameId}/resign`, {});
  }

  events(gameId: string): Promise<Schemas["EventList"]> {
    return this.call("GET", `/games/${gameId}/events?after=0&limit=1000`);
  }
}

async function main(baseUrl: string): Promise<void> {
  const client = new OsmosisClient(baseUrl);
  const { variants } = await client.variants();
  let game: Schemas["Game"] = await client.createGame({ variant: "osmosis-draw-one", deal_number: 0 });
  const actions: string[] = [];
  for (let step = 0; step < 20 && game.status === "playing"; step++) {
    const move = game.legal_actions.find((action: Schemas["LegalAction"]) => action.kind === "move");
    const result = move && move.card ? await client.move(game.id, { card: move.card, to: move.to }) : await client.draw(game.id);
    actions.push(...result.events.map((event: Schemas["Event"]) => event.kind));
    game = result.game;
  }
  if (game.status === "playing") game = (await client.resign(game.id)).game;
  let refused = "";
  try {
    await client.draw(game.id);
  } catch (error) {
    refused = (error as Error).message;
  }
  const log = await client.events(game.id);
  console.log(JSON.stringify({ variants: variants.length, status: game.status, version: game.version,
                               events: log.events.length, actions, refused }));
}

main(process.argv[2] ?? "http://127.0.0.1:8000").catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
