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

// `token`: the game's player token, for the requests that act on a game. Any other request carries the
// player's API token, if there is one: the games it creates are theirs, and their daily games are theirs to read.
export async function api(path, { method = "GET", body, token = null } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const bearer = token ?? apiToken();
  if (bearer) headers["Authorization"] = `Bearer ${bearer}`;
  if (method === "POST") headers["Idempotency-Key"] = crypto.randomUUID();
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json();
  if (!response.ok) throw new ApiError(data);
  return data;
}


export async function loadEvents(id, after) {
  const events = [];
  let path = `/games/${id}/events?after=${after}&limit=1000`;
  for (;;) {
    const bearer = apiToken();
    const response = await fetch(path, { headers: bearer ? { Authorization: `Bearer ${bearer}` } : {} });
    const page = await response.json();
    if (!response.ok) throw new ApiError(page);
    events.push(...page.events);
    const link = response.headers.get("Link");
    if (!link) return events;
    path = link.match(/<([^>]+)>/)[1];
  }
}
