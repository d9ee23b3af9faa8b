// The public HTTP API, as the front end calls it.

class ApiError extends Error {
  constructor(problem) { super(problem.detail || problem.title); this.problem = problem; }
}

// `token`: the player token, for the requests that act on a game.
export async function api(path, { method = "GET", body, token = null } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = `Bearer ${token}`;
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
    const response = await fetch(path);
    const page = await response.json();
    if (!response.ok) throw new ApiError(page);
    events.push(...page.events);
    const link = response.headers.get("Link");
    if (!link) return events;
    path = link.match(/<([^>]+)>/)[1];
  }
}
