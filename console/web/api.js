// The console's JSON API client: every call answers the parsed JSON or throws an Error
// carrying the API's {"error": "..."} message.
export async function get(path, params = {}) {
  const q = new URLSearchParams(params).toString();
  return decode(await fetch(q ? `${path}?${q}` : path, { cache: 'no-store' }));
}

export async function post(path, params = {}) {
  // The header marks a call of the console's own pages (cross-site request protection).
  return decode(await fetch(path, {
    method: 'POST', body: new URLSearchParams(params), headers: { 'X-Rocketstore-Console': '1' },
  }));
}

async function decode(res) {
  let body;
  try { body = await res.json(); } catch { throw new Error(`HTTP ${res.status}: not JSON`); }
  if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
  return body;
}
