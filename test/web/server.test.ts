// The playground's static server (scripts/playground.mjs): MIME types the browser needs
// (application/wasm for HiGHS, text/javascript for the module), and nothing outside the served
// folder, however the path is spelled. No browser needed.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileFor, serve } from '../../scripts/playground.mjs';

/** A GET (or another method) with the path sent exactly as written: no URL normalisation on the way. */
function get(url: string, path: string, method = 'GET'): Promise<{ status: number; type: string | undefined; allow: string | undefined; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], allow: res.headers['allow'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('playground server', () => {
  const top = mkdtempSync(join(tmpdir(), 'arrayfuse-serve-'));
  const site = join(top, 'site');
  let server: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    mkdirSync(join(site, 'sub'), { recursive: true });
    writeFileSync(join(top, 'secret.txt'), 'outside');
    writeFileSync(join(top, 'site-other.txt'), 'a sibling whose name starts like the folder');
    writeFileSync(join(site, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(site, 'app.js'), 'export {};');
    writeFileSync(join(site, 'highs.wasm'), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    writeFileSync(join(site, 'sub', 'style.css'), 'body {}');
    writeFileSync(join(site, 'ünï côdé.js'), '// odd name');
    server = await serve({ root: site, port: 0 });
  });

  afterAll(async () => {
    await server?.close();
    rmSync(top, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 only and serves index.html for /', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await get(server.url, '/');
    expect(index.status).toBe(200);
    expect(index.type).toBe('text/html; charset=utf-8');
  });

  it('sends the MIME types a browser needs', async () => {
    expect((await get(server.url, '/app.js')).type).toBe('text/javascript; charset=utf-8');
    expect((await get(server.url, '/highs.wasm')).type).toBe('application/wasm');
    expect((await get(server.url, '/sub/style.css')).type).toBe('text/css; charset=utf-8');
    const odd = await get(server.url, '/' + encodeURIComponent('ünï côdé.js') + '?v=1');
    expect([odd.status, odd.body]).toEqual([200, '// odd name']);
  });

  it('serves nothing outside its folder, however the path is spelled', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/sub/..%2f..%2fsecret.txt', '/%2e%2e%5csecret.txt', '/../site-other.txt', '/%00', '/%E0%A4%A', '/sub', '/missing.js']) {
      const answer = await get(server.url, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).not.toContain('outside');
    }
    expect(fileFor(site, '/../secret.txt')).toBeUndefined();
    expect(fileFor(site, '/app.js')).toBe(join(site, 'app.js'));
  });

  it('refuses methods other than GET and HEAD', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const refused = await get(server.url, '/app.js', method);
      expect([refused.status, refused.allow, refused.body], method).toEqual([405, 'GET, HEAD', 'method not allowed: this server only serves files\n']);
    }
    const head = await get(server.url, '/app.js', 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
  });
});
