// The offline verifier page's scripts run in this Node context (read from the built page, so whatever runs them
// and the page are one program); ``fail`` gets a one-line reason when the page cannot be read or lacks a script.
// Returns the promise of libsodium's initialisation (globalThis.fairdealReady): mental poker awaits it.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const url = require('url');
const vm = require('vm');
const zlib = require('zlib');

const SCRIPTS = ['noble', 'registry', 'verifier', 'mental-poker', 'engine-loader'];

function loadPage(page, fail) {
  let html;
  try {
    html = fs.readFileSync(page, 'utf8');
  } catch (error) {
    return fail(`${page}: cannot read the verifier page (run make: it is built there): ${error.code || error.message}`);
  }
  for (const id of SCRIPTS) {
    const match = new RegExp(`<script id="${id}">([\\s\\S]*?)</script>`).exec(html);
    if (!match) return fail(`${page}: the page has no script ${id} (an older build: run make)`);
    vm.runInThisContext(match[1], { filename: `${id}.js` });
  }
  return globalThis.fairdealReady;
}

// The page's engine under Node: the files its "engine" element carries, unpacked once into a folder named by their
// digest (Pyodide under Node reads its files from a folder), booted, and wrapped by the page's own replayer.
async function loadEngine(page) {
  const html = fs.readFileSync(page, 'utf8');
  const match = /<script type="application\/json" id="engine">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error(`${page}: the page carries no engine (an older build: run make)`);
  const digest = crypto.createHash('sha256').update(match[1]).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `fairdeal-engine-${digest}`);
  if (!fs.existsSync(dir)) {
    const partial = fs.mkdtempSync(`${dir}.partial-`);
    for (const [name, packed] of Object.entries(JSON.parse(match[1]))) {
      fs.writeFileSync(path.join(partial, name), zlib.gunzipSync(Buffer.from(packed, 'base64')));
    }
    try { fs.renameSync(partial, dir); } catch { fs.rmSync(partial, { recursive: true }); } // another run won
  }
  const { loadPyodide } = await import(url.pathToFileURL(path.join(dir, 'pyodide.mjs')).href);
  const pyodide = await loadPyodide({
    indexURL: dir + path.sep, lockFileContents: fs.readFileSync(path.join(dir, 'pyodide-lock.json'), 'utf8'),
    stdout: () => {}, stderr: () => {},
  });
  const engine = new Uint8Array(fs.readFileSync(path.join(dir, 'fairdeal.zip')));
  return globalThis.FairdealEngine.replayer(pyodide, engine, globalThis.FairdealVerifier.encode);
}

module.exports = { loadPage, loadEngine };
