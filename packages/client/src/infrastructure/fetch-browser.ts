/**
 * In a browser bundle (the web console), `undici` resolves here (package.json `browser`): the
 * page's own fetch, which sends the session cookie to its origin. Streamed downloads and
 * multipart uploads need Node and are not used there.
 */
export const fetch = (url: string, init: RequestInit) => globalThis.fetch(url, init);
