// The offline verifier page's scripts run in this Node context (read from the built page, so whatever runs them
// and the page are one program); ``fail`` gets a one-line reason when the page cannot be read or lacks a script.
// Returns the promise of libsodium's initialisation (globalThis.fairdealReady): mental poker awaits it.
'use strict';
const fs = require('fs');
const vm = require('vm');

const SCRIPTS = ['noble', 'registry', 'verifier', 'mental-poker'];

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

module.exports = { loadPage };
