// Calls to the server's stateless endpoints. Every failure becomes an ApiError with the
// server's message ({"message": ...}), so that the page can show it and carry on.

export class ApiError extends Error {}

async function answer(response) {
  let body = null;
  try {
    body = await response.json();
  } catch (e) {
    body = null;
  }
  if (!response.ok) {
    const message = body && body.message ? body.message : `the server answered ${response.status}`;
    throw new ApiError(message);
  }
  return body;
}

async function request(url, options) {
  let response;
  try {
    response = await fetch(url, options);
  } catch (e) {
    throw new ApiError("the server cannot be reached");
  }
  return answer(response);
}

export function get(path, params = {}) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") query.set(k, v);
  const text = query.toString();
  return request(text ? `${path}?${text}` : path, { headers: { Accept: "application/json" } });
}

// The query naming a game view's situation (GET /v1/game/view's answer) for the stateless endpoints:
// backgammon's token (PositionID:MatchID); long nardy's Position ID, with its Match ID in a match.
export function viewQuery(view) {
  if (view.variant !== "long") return { position: view.game };
  return { variant: "long", position: view.match_id ? `${view.position_id}:${view.match_id}` : view.position_id };
}

export function post(path, body) {
  return request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
}

// A raw body (a match file: a File or a string) posted as is, e.g. to /v1/analyze?plies=0.
export function postRaw(path, params, body) {
  const query = new URLSearchParams(params).toString();
  return request(query ? `${path}?${query}` : path, {
    method: "POST",
    headers: { "Content-Type": "text/plain", Accept: "application/json" },
    body,
  });
}
