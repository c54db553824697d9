import { it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startForgelet } from '@forgelet/server';

/** GET with an explicit Host header (fetch does not let us set it). */
function getLink(url: string, host: string, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Host: host, 'PRIVATE-TOKEN': token } }, (res) => {
      res.resume();
      resolve(String(res.headers.link));
    });
    req.on('error', reject);
    req.end();
  });
}

it('pagination links use the request Host unless an external URL is configured', async () => {
  const open = await startForgelet();
  try {
    const port = new URL(open.url).port;
    const link = await getLink(`${open.url}/api/v4/users?per_page=1`, `localhost:${port}`, open.rootToken!);
    assert.match(link, new RegExp(`^<http://localhost:${port}/api/v4/users\\?page=1&per_page=1>; rel="first"`));
  } finally {
    await open.stop();
  }
  const fixed = await startForgelet({ externalUrl: 'https://forge.example.test' });
  try {
    const link = await getLink(`${fixed.url}/api/v4/users?per_page=1`, 'elsewhere:1234', fixed.rootToken!);
    assert.match(link, /^<https:\/\/forge\.example\.test\/api\/v4\/users\?page=1&per_page=1>; rel="first"/);
  } finally {
    await fixed.stop();
  }
});
