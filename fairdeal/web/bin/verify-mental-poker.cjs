#!/usr/bin/env node
// The Node command-line verifier of fairdeal-mental-poker/4 transcripts: the offline verifier page's own scripts
// (read from the built page, so the command and the page are one program, the records replayed by the page's engine),
// the same verdicts as `fairdeal verify`.
//   verify-mental-poker [--page PAGE] TRANSCRIPT...
// Exit 0: every transcript verifies; 1: a finding, one line each naming the party and the step; 2: unreadable input.
'use strict';
const fs = require('fs');
const path = require('path');
const { loadEngine, loadPage } = require('./load_page.cjs');

const PAGE = path.join(__dirname, '..', 'static', 'vendor', 'verifier.html');

function usage(text) {
  process.stderr.write(`Error: ${text}\n`);
  process.exit(2);
}

function loose(bytes) {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
}

async function main(argv) {
  let page = PAGE;
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--page') page = argv[++i];
    else if (argv[i] === '-h' || argv[i] === '--help') {
      process.stdout.write('usage: verify-mental-poker [--page PAGE] TRANSCRIPT...\n');
      return 0;
    } else files.push(argv[i]);
  }
  if (!files.length || page === undefined) usage('give one or more mental-poker transcript files');
  await loadPage(page, usage);
  const V = globalThis.FairdealVerifier;
  const MP = globalThis.FairdealMP;
  // A JSON transcript that is not canonical is a finding, as `fairdeal verify` reports it; what is not a JSON
  // mental-poker transcript at all is unreadable input.
  const refused = [];
  const docs = [];
  for (const file of files) {
    let bytes;
    try {
      bytes = new Uint8Array(fs.readFileSync(file));
    } catch (error) {
      usage(`${file}: cannot read: ${error.code || error.message}`);
    }
    let doc;
    try {
      doc = V.decode(bytes);
    } catch (error) {
      if (!(error instanceof V.CanonicalError)) throw error;
      doc = loose(bytes);
      if (doc === null) usage(`${file}: not a JSON transcript: ${error.message}`);
      refused.push({ source: file, hand: null, party: 'service', check: 'transcript file', detail: `${file}: not canonical JSON: ${error.message}` });
    }
    if (doc === null || typeof doc !== 'object' || doc.protocol !== MP.verify.PROTOCOL_V4) {
      usage(`${file}: not a ${MP.verify.PROTOCOL_V4} transcript`);
    }
    if (!refused.some((f) => f.source === file)) docs.push({ source: file, doc });
  }
  const replayer = docs.length ? await loadEngine(page) : null;
  const report = docs.length ? MP.verify.verifyTranscripts(docs, undefined, null, replayer) : { ok: false, failures: [], notes: [], caveats: [] };
  report.ok = report.ok && !refused.length;
  for (const failure of [...refused, ...report.failures]) process.stdout.write(MP.verify.line(failure) + '\n');
  if (report.ok) process.stdout.write(`verified ${docs.length} mental-poker transcript(s)\n`);
  for (const note of [...report.notes, ...report.caveats]) process.stdout.write(`note: ${note}\n`);
  return report.ok ? 0 : 1;
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
