// The engine on the page: Pyodide (CPython in WebAssembly, standard library only) and fairdeal's own engine
// modules, all carried in the page's "engine" data element, gzip-compressed and base64-encoded. Records are
// replayed and scored by fairdeal.web.page_replay, the functions `fairdeal verify` calls, so the page cannot
// judge a record otherwise than the command. Nothing is fetched: the loader's requests are answered from the
// page's own bytes.
(function (root) {
  'use strict';
  const BASE = 'https://fairdeal.invalid/engine/'; // a name only: every request under it is answered below

  function embedded() {
    const element = typeof document === 'undefined' ? null : document.getElementById('engine');
    if (element === null) throw new Error('the page carries no engine (an older build: run make)');
    return JSON.parse(element.textContent);
  }

  // base64 of gzip -> bytes, by the platform's own decompressor.
  async function unpacked(text) {
    const packed = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  async function moduleOf(bytes) {
    const url = URL.createObjectURL(new Blob([bytes], { type: 'text/javascript' }));
    try { return await import(url); } finally { URL.revokeObjectURL(url); }
  }

  // In a browser: Pyodide's loader and its Emscripten module are imported from the page's bytes, and its two
  // downloads (the WebAssembly binary, the standard library) are answered from them while it boots.
  async function bootInBrowser(files) {
    const bytes = {};
    for (const name of Object.keys(files)) bytes[name] = await unpacked(files[name]);
    const own = globalThis.fetch;
    globalThis.fetch = async (url) => {
      const name = String(url).startsWith(BASE) ? String(url).slice(BASE.length) : null;
      if (name === null || !bytes[name]) throw new TypeError(`the verifier page fetches nothing (asked for ${url})`);
      const type = name.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
      return new Response(bytes[name], { headers: { 'Content-Type': type } });
    };
    try {
      const loader = await moduleOf(bytes['pyodide.mjs']);
      const emscripten = await moduleOf(bytes['pyodide.asm.mjs']);
      const pyodide = await loader.loadPyodide({
        indexURL: BASE, createPyodideModule: emscripten.default,
        lockFileContents: new TextDecoder().decode(bytes['pyodide-lock.json']),
        stdout: () => {}, stderr: () => {},
      });
      return { pyodide, engine: bytes['fairdeal.zip'] };
    } finally {
      globalThis.fetch = own;
    }
  }

  // The replay, over a booted Pyodide and the engine's zip: ``open(table)`` gives the session's evening (its
  // ``played``, ``refused``, ``due``, ``penalty`` and ``settled``, a mental-poker hand's ``handSteps``,
  // ``abandonedPlay`` and ``abandonedLive``, and a mental-poker seat's ``amountsObjection``, JSON values in and
  // out), or the reason its convention cannot be rebuilt.
  function replayer(pyodide, engine, encode) {
    pyodide.FS.mkdirTree('/fairdeal');
    pyodide.FS.writeFile('/fairdeal/engine.zip', engine);
    pyodide.runPython("import sys\nsys.path.insert(0, '/fairdeal/engine.zip')");
    const bridge = pyodide.pyimport('fairdeal.web.page_replay');
    const text = (value) => new TextDecoder().decode(encode(value));
    return {
      open(table) {
        const evening = bridge.open_evening(text(table));
        if (typeof evening === 'string') return evening;
        return {
          played: (docs, trusted) => JSON.parse(evening.played(text(docs), text(trusted))),
          refused: (doc) => JSON.parse(evening.refused(text(doc))),
          due: (charged) => JSON.parse(evening.due(text(charged))),
          penalty: (charged) => JSON.parse(evening.penalty(text(charged))),
          settled: (complete, charged) => JSON.parse(evening.settled(text(complete), text(charged))),
          handSteps: (facts) => JSON.parse(evening.hand_steps(text(facts))),
          abandonedPlay: (facts) => JSON.parse(evening.abandoned_play(text(facts))),
          abandonedLive: (facts) => JSON.parse(evening.abandoned_live(text(facts))),
          amountsObjection: (complete, charged, settlement) => JSON.parse(
            evening.amounts_objection(text(complete), text(charged), text(settlement))),
        };
      },
    };
  }

  let loading = null;
  // The page's replayer, booted once (a few seconds) on first use.
  function load(encode) {
    if (loading === null) {
      loading = bootInBrowser(embedded()).then(({ pyodide, engine }) => replayer(pyodide, engine, encode));
    }
    return loading;
  }

  root.FairdealEngine = { load, replayer };
})(globalThis);
