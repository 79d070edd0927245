// Builds the playground and serves it on this machine only (127.0.0.1).
//
//   node scripts/playground.mjs [--port N] [--no-build]     (npm run playground -- --port 9000)
//
// Port 0 takes a free port. The server serves the built folder's files and nothing else: a
// path is decoded, resolved inside the folder, and refused (404) if it leaves it. Each file
// goes out with its MIME type (application/wasm lets the browser compile HiGHS while it streams).

import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildWeb } from './build-web.mjs';

const builtSite = join(dirname(fileURLToPath(import.meta.url)), '../out/web');

const mimeTypes = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The file a request path names inside `root`, or undefined when it names none (or escapes). */
export function fileFor(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(new URL(urlPath, 'http://localhost').pathname);
  } catch {
    return undefined;
  }
  if (path.includes('\0')) return undefined;
  const base = resolve(root);
  const file = resolve(base, '.' + (path.endsWith('/') ? path + 'index.html' : path));
  if (file !== base && !file.startsWith(base + sep)) return undefined;
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serves `root` on `host:port` (port 0: a free one). Resolves to the URL and a `close`
 * that stops the server and ends its open connections.
 */
export function serve({ root, port = 8080, host = '127.0.0.1' }) {
  const server = createServer((request, response) => {
    const reads = request.method === 'GET' || request.method === 'HEAD';
    if (!reads) {
      response.writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' });
      response.end('method not allowed: this server only serves files\n');
      return;
    }
    const file = fileFor(root, request.url ?? '/');
    if (file === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('not found\n');
      return;
    }
    response.writeHead(200, {
      'content-type': mimeTypes[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    if (request.method === 'HEAD') response.end();
    else createReadStream(file).pipe(response);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const url = `http://${host}:${typeof address === 'object' && address !== null ? address.port : port}/`;
      const close = () =>
        new Promise((done) => {
          server.close(() => done());
          server.closeAllConnections();
        });
      resolvePromise({ url, close });
    });
  });
}

/** `--port N` and `--no-build`. */
function parseArgs(argv) {
  const options = { port: 8080, build: true };
  for (let k = 0; k < argv.length; k++) {
    if (argv[k] === '--port') {
      const port = Number(argv[++k]);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`playground: --port wants an integer from 0 to 65535, not ${JSON.stringify(argv[k])}`);
      options.port = port;
    } else if (argv[k] === '--no-build') options.build = false;
    else throw new Error(`playground: unknown argument ${JSON.stringify(argv[k])} (use --port N, --no-build)`);
  }
  return options;
}

if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  try {
    const { port, build } = parseArgs(process.argv.slice(2));
    const root = build ? await buildWeb() : builtSite;
    const { url } = await serve({ root, port });
    console.log(`arrayfuse playground: ${url}  (serving ${root}; Ctrl-C stops it)`);
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  }
}
