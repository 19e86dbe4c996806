// What the pages know of the console before they render (GET /api/console, read once at
// start): in a read-only console (--console-read-only) every control that would change the
// broker is left out and the header shows a "read-only" badge; the server refuses such
// calls (403) whatever the page does.
export const settings = { readOnly: false, version: '' };
