import { it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startForgelet } from '@forgelet/server';

it('graceful shutdown finishes a request in flight and then refuses new connections', async () => {
  const f = await startForgelet();
  const url = new URL(`${f.url}/api/v4/groups`);
  // A request whose body is still arriving when stop() begins.
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'PRIVATE-TOKEN': f.rootToken!, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.write('{"name":"Late",');
    setTimeout(() => req.end('"path":"late"}'), 150);
  });
  await new Promise((r) => setTimeout(r, 50));
  const stopped = f.stop();
  const result = await answered;
  await stopped;
  assert.equal(result.status, 201, result.body);
  assert.equal(JSON.parse(result.body).full_path, 'late');
  await assert.rejects(fetch(`${f.url}/-/health`));
});
