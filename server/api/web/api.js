// The public HTTP API, as the front end calls it.

class ApiError extends Error {
  constructor(problem) { super(problem.detail || problem.title); this.problem = problem; }
}

const API_TOKEN = "osmosis-api-token"; // the player's API token, when they chose a name in this browser

export function apiToken() {
  return localStorage.getItem(API_TOKEN);
}

export function keepApiToken(token) {
  if (token) localStorage.setItem(API_TOKEN, token);
  else localStorage.removeItem(API_TOKEN);
}

const WAITS = 5; // a 429 or 503 is sent again this many times at most
const LONGEST_WAIT_SECONDS = 30;

// A request, sent again after its Retry-After while the server answers 429 (too many requests) or 503 (not
// now): the same request, so a POST keeps its Idempotency-Key and is never done twice.
async function sent(path, init) {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(path, init);
    const notNow = response.status === 429 || response.status === 503;
    const seconds = Number(response.headers.get("Retry-After") ?? "1");
    if (!notNow || attempt === WAITS || !(seconds <= LONGEST_WAIT_SECONDS)) return response;
    await new Promise((done) => setTimeout(done, 1000 * Math.max(seconds, 0.1)));
  }
}

// `token`: the game's player token, for the requests that act on a game. Any other request carries the
// player's API token, if there is one: the games it creates are theirs, and their daily games are theirs to read.
export async function api(path, { method = "GET", body, token = null } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const bearer = token ?? apiToken();
  if (bearer) headers["Authorization"] = `Bearer ${bearer}`;
  if (method === "POST") headers["Idempotency-Key"] = crypto.randomUUID();
  const response = await sent(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json();
  if (!response.ok) throw new ApiError(data);
  return data;
}


export async function loadEvents(id, after) {
  const events = [];
  let path = `/games/${id}/events?after=${after}&limit=1000`;
  for (;;) {
    const bearer = apiToken();
    const response = await sent(path, { headers: bearer ? { Authorization: `Bearer ${bearer}` } : {} });
    const page = await response.json();
    if (!response.ok) throw new ApiError(page);
    events.push(...page.events);
    const link = response.headers.get("Link");
    if (!link) return events;
    path = link.match(/<([^>]+)>/)[1];
  }
}
