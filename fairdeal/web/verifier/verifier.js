// The offline verifier of fairdeal-commit-reveal/4 (protocols/commit-reveal.md §10-13), the same checks as
// fairdeal/protocols/commit_reveal4/check.py and the v4 part of fairdeal/protocols/verify.py, in the same order,
// with the same blame. A classic script (no modules: the page runs from file://); it needs globalThis.fairdealNoble
// (ed25519, sha256, shake256 from @noble) and globalThis.FAIRDEAL_REGISTRY (decks, deal patterns, systems).
(function (root) {
  'use strict';

  const SERVICE = 'service';
  const RECORD = 'record';
  const PROTOCOL = 'fairdeal-commit-reveal/4';
  const MENTAL_POKER = 'fairdeal-mental-poker/4'; // verified by FairdealMP (fairdeal/web/mental_poker/) when loaded
  const FORMAT = 'fairdeal-transcript';
  const SETTLEMENT_FORMAT = 'fairdeal-settlement';
  const SETTLEMENT_FILE = 'settlement.json';
  const VERSION = 4;
  const SIGNED_DOMAIN = 'fairdeal-signed/4';
  const ROSTER_FORMAT = 'fairdeal-roster';
  const MAX_SESSION_HANDS = 10000;
  const MAX_DEPTH = 64;
  const MAX_STRING_BYTES = 1 << 16;
  const MAX_DOCUMENT_BYTES = 16 << 20;
  const MAX_INT = 2n ** 63n;
  const STREAM_BYTES = 64;
  const DEAL_RULES = ['players', 'table.deck', 'table.deal_pattern', 'table.hand_players', 'table.dummy',
    'table.patterns_by_players'];

  const noble = () => root.fairdealNoble;
  const registry = () => root.FAIRDEAL_REGISTRY;
  const utf8 = new TextEncoder();
  const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

  // ---- bytes ----------------------------------------------------------------------------------------------
  function concat(parts) {
    let size = 0;
    for (const p of parts) size += p.length;
    const out = new Uint8Array(size);
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  }
  const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
  function toHex(bytes) { let s = ''; for (const b of bytes) s += HEX[b]; return s; }
  function fromHex(text) {
    const out = new Uint8Array(text.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(2 * i, 2), 16);
    return out;
  }
  function isHex(value, bytes) {
    return typeof value === 'string' && value.length === 2 * bytes && /^[0-9a-f]*$/.test(value);
  }
  function equalBytes(a, b) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  const sha256 = (bytes) => noble().sha256(bytes);
  const sha256Hex = (bytes) => toHex(sha256(bytes));

  // ---- canonical JSON (fairdeal/protocols/canonical.py) ---------------------------------------------------
  class CanonicalError extends Error {}

  const isInt = (v) => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isNatural = (v) => isInt(v) && v >= 0;
  const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

  // Python orders keys by code point; JavaScript's < compares UTF-16 units (they differ above U+FFFF).
  function comparePoints(a, b) {
    const x = Array.from(a), y = Array.from(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = x[i].codePointAt(0) - y[i].codePointAt(0);
      if (d) return d;
    }
    return x.length - y.length;
  }

  const NAMED = { '"': '"', '\\': '\\', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
  const CANONICAL_ESCAPE = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r',
    '\t': '\\t' };

  function quote(text) {
    let out = '"';
    for (const ch of text) {
      if (CANONICAL_ESCAPE[ch]) out += CANONICAL_ESCAPE[ch];
      else if (ch < ' ') out += '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
      else out += ch;
    }
    return out + '"';
  }

  function encodeText(value) {
    if (value === null) return 'null';
    if (value === true) return 'true';
    if (value === false) return 'false';
    if (typeof value === 'string') return quote(value);
    if (isInt(value)) return String(value);
    if (Array.isArray(value)) return '[' + value.map(encodeText).join(',') + ']';
    if (isObject(value)) {
      const keys = Object.keys(value).sort(comparePoints);
      return '{' + keys.map((k) => quote(k) + ':' + encodeText(value[k])).join(',') + '}';
    }
    throw new CanonicalError('$: not a JSON value');
  }
  const encode = (value) => utf8.encode(encodeText(value));

  const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
  const keyPath = (path, key) => (IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

  class Parser {
    constructor(data) { this.data = data; this.pos = 0; }
    fail(path, what) { return new CanonicalError(`${path}: ${what} (byte ${this.pos})`); }
    at(offset = 0) { return this.data[this.pos + offset]; }
    hint() { return [0x20, 0x0a, 0x09, 0x0d].includes(this.at()) ? ': whitespace is not canonical' : ''; }
    document() {
      const value = this.value('$', 0);
      if (this.pos !== this.data.length) throw this.fail('$', 'bytes after the value' + this.hint());
      return value;
    }
    value(path, depth) {
      if (this.pos >= this.data.length) throw this.fail(path, 'the document ends where a value belongs');
      const head = this.at();
      if (head === 0x7b || head === 0x5b) {
        if (depth >= MAX_DEPTH) throw this.fail(path, `nesting deeper than ${MAX_DEPTH}`);
        return head === 0x7b ? this.object(path, depth) : this.array(path, depth);
      }
      if (head === 0x22) return this.string(path);
      for (const [word, meaning] of [['true', true], ['false', false], ['null', null]]) {
        if (this.startsWith(word)) { this.pos += word.length; return meaning; }
      }
      return this.number(path);
    }
    startsWith(word) {
      for (let i = 0; i < word.length; i++) if (this.at(i) !== word.charCodeAt(i)) return false;
      return true;
    }
    object(path, depth) {
      this.pos += 1;
      const out = Object.create(null);
      let previous = null;
      if (this.at() === 0x7d) { this.pos += 1; return out; }
      for (;;) {
        if (this.at() !== 0x22) throw this.fail(path, 'an object key must be a string' + this.hint());
        const key = this.string(path);
        if (Object.prototype.hasOwnProperty.call(out, key)) throw this.fail(path, `duplicate key ${JSON.stringify(key)}`);
        if (previous !== null && comparePoints(key, previous) < 0) {
          throw this.fail(path, `key ${JSON.stringify(key)} is out of sorted order`);
        }
        this.expect(0x3a, ':', path);
        out[key] = this.value(keyPath(path, key), depth + 1);
        previous = key;
        if (this.at() === 0x7d) { this.pos += 1; return out; }
        this.expect(0x2c, ',', path);
      }
    }
    array(path, depth) {
      this.pos += 1;
      const out = [];
      if (this.at() === 0x5d) { this.pos += 1; return out; }
      for (;;) {
        out.push(this.value(`${path}[${out.length}]`, depth + 1));
        if (this.at() === 0x5d) { this.pos += 1; return out; }
        this.expect(0x2c, ',', path);
      }
    }
    expect(code, token, path) {
      if (this.at() !== code) throw this.fail(path, `expected ${token}` + this.hint());
      this.pos += 1;
    }
    number(path) {
      let end = this.pos;
      const digit = (i) => this.data[i] >= 0x30 && this.data[i] <= 0x39;
      if (this.data[end] === 0x2d) end += 1;
      const first = end;
      while (digit(end)) end += 1;
      if (end === first) throw this.fail(path, 'not a JSON value' + this.hint());
      let fraction = false;
      if (this.data[end] === 0x2e && digit(end + 1)) { fraction = true; end += 1; while (digit(end)) end += 1; }
      if (this.data[end] === 0x65 || this.data[end] === 0x45) {
        let e = end + 1;
        if (this.data[e] === 0x2b || this.data[e] === 0x2d) e += 1;
        if (digit(e)) { fraction = true; end = e; while (digit(end)) end += 1; }
      }
      const text = String.fromCharCode(...this.data.subarray(this.pos, end));
      if (fraction) throw this.fail(path, `${text.slice(0, 40)} is not an integer (no fractions or exponents)`);
      if (!/^-?(0|[1-9][0-9]*)$/.test(text) || text === '-0') {
        throw this.fail(path, `${text.slice(0, 40)} is not the canonical form of an integer`);
      }
      if (text.length > 20) throw this.fail(path, 'integer out of range (|n| < 2**63)');
      const big = BigInt(text);
      if (!(-MAX_INT < big && big < MAX_INT)) throw this.fail(path, 'integer out of range (|n| < 2**63)');
      this.pos = end;
      return Number.isSafeInteger(Number(big)) ? Number(big) : big;
    }
    string(path) {
      let start = (this.pos += 1);
      let text = '';
      for (;;) {
        let end = start;
        while (end < this.data.length && this.data[end] !== 0x22 && this.data[end] !== 0x5c && this.data[end] >= 0x20) {
          end += 1;
          if (end - start > MAX_STRING_BYTES) throw this.fail(path, `string longer than ${MAX_STRING_BYTES} bytes`);
        }
        try {
          text += strictUtf8.decode(this.data.subarray(start, end));
        } catch {
          this.pos = start;
          throw this.fail(path, 'invalid UTF-8 (or a surrogate) in a string');
        }
        this.pos = end;
        if (end >= this.data.length) throw this.fail(path, 'unterminated string');
        if (this.data[end] === 0x22) {
          this.pos = end + 1;
          if (utf8.encode(text).length > MAX_STRING_BYTES) {
            throw this.fail(path, `string longer than ${MAX_STRING_BYTES} bytes`);
          }
          return text;
        }
        if (this.data[end] < 0x20) throw this.fail(path, 'a control character must be escaped');
        text += this.escape(path);
        start = this.pos;
      }
    }
    escape(path) {
      const code = String.fromCharCode(this.at(1));
      if (Object.prototype.hasOwnProperty.call(NAMED, code)) { this.pos += 2; return NAMED[code]; }
      const digits = String.fromCharCode(...this.data.subarray(this.pos + 2, this.pos + 6));
      if (code !== 'u' || !/^[0-9a-fA-F]{4}$/.test(digits)) throw this.fail(path, 'invalid escape in a string');
      const value = parseInt(digits, 16);
      if (value >= 0xd800 && value <= 0xdfff) throw this.fail(path, 'lone surrogate in a string');
      const ch = String.fromCharCode(value);
      if (ch >= ' ' || CANONICAL_ESCAPE[ch] || digits !== digits.toLowerCase()) {
        throw this.fail(path, `non-canonical escape \\u${digits}`);
      }
      this.pos += 6;
      return ch;
    }
  }

  function decode(data) {
    if (data.length > MAX_DOCUMENT_BYTES) {
      throw new CanonicalError(`$: ${data.length} bytes, more than the limit of ${MAX_DOCUMENT_BYTES}`);
    }
    const value = new Parser(data).document();
    if (!equalBytes(encode(value), data)) throw new CanonicalError('$: not the canonical encoding of its value');
    return value;
  }

  // A domain-separation tuple: each part tagged by type and prefixed by its length (canonical.context).
  function context(...parts) {
    const out = [u32(parts.length)];
    for (const part of parts) {
      let tag, data;
      if (typeof part === 'string') { tag = 0x73; data = utf8.encode(part); }
      else if (part instanceof Uint8Array) { tag = 0x62; data = part; }
      else {
        tag = 0x69;
        data = new Uint8Array(8);
        new DataView(data.buffer).setBigInt64(0, BigInt(part), false);
      }
      out.push(Uint8Array.of(tag), u32(data.length), data);
    }
    return concat(out);
  }
  function u32(n) { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, n, false); return b; }

  // Ed25519 as the Python verifier (libsodium) checks it: S < L, then the cofactorless equation, [S]B - [k]A encoded
  // must be R's bytes, and R of large order. Each key is decoded once, strictly (canonical y; a small-order key is no one's key), and
  // keeps its multiplication table: a session's keys sign every message. Once the page's libsodium (WebAssembly)
  // is ready, it is the Python's own check, three times faster; @noble's stays for a browser without WebAssembly.
  const points = new Map();
  const verified = new Map();
  const MAX_REMEMBERED = 4096;

  function littleEndian(bytes) {
    let value = 0n;
    for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]);
    return value;
  }

  function keyPoint(keyHex) {
    if (!points.has(keyHex)) {
      let point;
      try {
        point = noble().ed25519.Point.fromBytes(fromHex(keyHex), false);
        if (point.isSmallOrder()) point = null;
        else point._setWindowSize(8);
      } catch {
        point = null; // no curve point: it verifies nothing
      }
      if (points.size >= MAX_REMEMBERED) points.clear();
      points.set(keyHex, point);
    }
    return points.get(keyHex);
  }

  function ed25519Verify(keyHex, message, signature) {
    const sodium = root.fairdealSodium;
    if (sodium) {
      const key = fromHex(keyHex);
      return key.length === 32 && signature.length === 64 && sodium.crypto_sign_verify_detached(signature, message, key);
    }
    const { Point, CURVE } = noble().ed25519;
    const A = keyPoint(keyHex);
    const s = littleEndian(signature.subarray(32));
    if (A === null || s >= CURVE.n) return false;
    const r = signature.subarray(0, 32);
    const k = littleEndian(noble().sha512(concat([r, fromHex(keyHex), message]))) % CURVE.n;
    // Everything here is public: the variable-time multiplication is safe and four times faster.
    const SB = s === 0n ? Point.ZERO : Point.BASE.multiplyUnsafe(s);
    const kA = k === 0n ? Point.ZERO : A.multiplyUnsafe(k);
    const R = SB.subtract(kA);
    return equalBytes(R.toBytes(), r) && !R.isSmallOrder();
  }

  // A roster and a session's opening are checked again in every transcript of the session: remember answers.
  function verifySignature(keyHex, message, signatureHex) {
    if (!isHex(signatureHex, 64)) return false;
    const id = keyHex + signatureHex + sha256Hex(message);
    if (!verified.has(id)) {
      if (verified.size >= MAX_REMEMBERED) verified.clear();
      verified.set(id, ed25519Verify(keyHex, message, fromHex(signatureHex)));
    }
    return verified.get(id);
  }

  // ---- the roster (fairdeal/protocols/roster.py) ----------------------------------------------------------
  class Refused extends Error {
    constructor(message, party, check) { super(message); this.party = party; this.check = check; }
  }
  const protocolError = (message) => new Refused(message, SERVICE, 'protocol');

  function fieldsOf(value, where, fields) {
    if (!isObject(value)) throw protocolError(`${where}: an object is expected`);
    const have = Object.keys(value);
    if (have.length !== fields.length || !fields.every((f) => have.includes(f))) {
      const missing = fields.filter((f) => !have.includes(f)).sort(comparePoints);
      const unknown = have.filter((f) => !fields.includes(f)).sort(comparePoints).slice(0, 3);
      const named = [...missing, ...unknown.map((key) => oneLine(pyRepr(key), QUOTE_CHARS))];
      throw protocolError(`${where}: fields ${named.join(', ')} are missing or unknown`);
    }
    return value;
  }
  function nonEmpty(value, where) {
    if (typeof value !== 'string' || !value) throw protocolError(`${where}: a non-empty string is expected`);
    return value;
  }
  function publicKey(value, where) {
    if (!isHex(value, 32)) throw protocolError(`${where} must be 64 lowercase hex digits`);
    return value;
  }
  function signatureField(value, where) {
    if (value === '' || isHex(value, 64)) return value;
    throw protocolError(`${where}: a signature is 128 lowercase hex digits`);
  }

  const BODY_FIELDS = ['format', 'version', 'protocol', 'table', 'session', 'time', 'system', 'convention', 'pulya',
    'service', 'seats'];

  function readRoster(doc, where) {
    const top = fieldsOf(doc, where, ['roster', 'signatures']);
    const at = `${where}.roster`;
    const body = fieldsOf(top.roster, at, BODY_FIELDS);
    if (body.format !== ROSTER_FORMAT || body.version !== 1) {
      throw protocolError(`${at}.format: not a ${ROSTER_FORMAT} version 1`);
    }
    for (const name of ['protocol', 'table', 'session', 'time', 'system']) nonEmpty(body[name], `${at}.${name}`);
    if (!isInt(body.pulya) || body.pulya < 1) throw protocolError(`${at}.pulya: a positive whole number is expected`);
    if (!isObject(body.convention)) throw protocolError(`${at}.convention: an object of house rules is expected`);
    if (!Array.isArray(body.seats) || !body.seats.length) throw protocolError(`${at}.seats: a non-empty list is expected`);
    const seats = body.seats.map((entry, index) => {
      const seat = fieldsOf(entry, `${at}.seats[${index}]`, ['seat', 'name', 'key']);
      if (seat.seat !== index) throw protocolError(`${at}.seats[${index}].seat: seats are numbered 0..n-1 in order`);
      return { name: nonEmpty(seat.name, `${at}.seats[${index}].name`), key: publicKey(seat.key, `${at}.seats[${index}].key`) };
    });
    const signatures = fieldsOf(top.signatures, `${where}.signatures`, ['service', 'seats']);
    if (!Array.isArray(signatures.seats) || signatures.seats.length !== seats.length) {
      throw protocolError(`${where}.signatures.seats: one signature per seat is expected`);
    }
    const service = publicKey(body.service, `${at}.service`);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(body.time)) {
      throw protocolError(`roster: time ${pyRepr(body.time)} is not YYYY-MM-DDTHH:MM:SSZ`);
    }
    const names = seats.map((s) => s.name);
    if (!names.length || new Set(names).size !== names.length || !names.every(Boolean)) {
      throw protocolError(`roster: seat names must be distinct and non-empty: ${pyRepr(names)}`);
    }
    const keys = [service, ...seats.map((s) => s.key)];
    if (new Set(keys).size !== keys.length) {
      throw protocolError('roster: every party needs its own identity key (one key sits twice)');
    }
    const bodyBytes = encode(body);
    return {
      body, seats, service,
      table: body.table, session: body.session, system: body.system, convention: body.convention, pulya: body.pulya,
      hash: sha256Hex(bodyBytes),
      message: concat([context(ROSTER_FORMAT, 1), bodyBytes]),
      serviceSignature: signatureField(signatures.service, `${where}.signatures.service`),
      seatSignatures: signatures.seats.map((s, i) => signatureField(s, `${where}.signatures.seats[${i}]`)),
      party(sender) { return sender === SERVICE ? SERVICE : `player ${seats[sender].name}`; },
      keyOf(sender) { return sender === SERVICE ? service : seats[sender].key; },
    };
  }

  function checkRosterSignatures(roster) {
    if (!verifySignature(roster.service, roster.message, roster.serviceSignature)) {
      throw protocolError("roster: service: the service's signature does not verify");
    }
    roster.seats.forEach((seat, index) => {
      if (!verifySignature(seat.key, roster.message, roster.seatSignatures[index])) {
        throw protocolError(`roster: player ${seat.name} (seat ${index}): the signature does not verify`);
      }
    });
  }

  // ---- house rules (fairdeal/rules/overrides.py: with_overrides, one value at a time) ------------------------
  const WORDS = ['yes', 'true', 'no', 'false'];
  const DIGITS = String.raw`\p{Nd}+(?:_\p{Nd}+)*`;
  // Python's Fraction(text): a sign, then a ratio or a decimal with an exponent, in any script's digits.
  const FRACTION_TEXT = new RegExp(String.raw`^\s*[-+]?(?=\p{Nd}|\.\p{Nd})(\p{Nd}*|${DIGITS})` +
    String.raw`(?:(?:/(${DIGITS}))?|(?:\.(${DIGITS})?)?(?:[eE][-+]?${DIGITS})?)\s*$`, 'u');

  // A digit's value in any script: Unicode puts each script's 0..9 in a run of ten (some runs adjoin).
  function digitValue(digit) {
    let start = digit.codePointAt(0);
    while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start -= 1;
    return (digit.codePointAt(0) - start) % 10;
  }

  function fractionText(text) {
    const match = FRACTION_TEXT.exec(text);
    return match !== null && (match[2] === undefined || Array.from(match[2]).some((d) => d !== '_' && digitValue(d) !== 0));
  }

  // The form (and the value) _from_json names when it cannot read ``value`` as ``form``, or null: a part of a list
  // or of a fixed list is named itself; a choice of forms is named whole.
  function unreadable(value, form) {
    const own = [form, value], of = form.of;
    switch (form.kind) {
      case 'any': return of.some((f) => unreadable(value, f) === null) ? null : own;
      case 'null': return value === null ? null : own;
      case 'one of': return typeof value === 'string' && of.includes(value) ? null : own;
      case 'bool': return typeof value === 'boolean' || (typeof value === 'string' && WORDS.includes(value.toLowerCase())) ? null : own;
      case 'int': return isInt(value) ? null : own;
      case 'str': return typeof value === 'string' ? null : own;
      case 'fraction': return isInt(value) || (typeof value === 'string' && fractionText(value)) ? null : own;
      case 'list': return Array.isArray(value) ? firstUnreadable(value.map((v) => [v, of])) : own;
      default: // 'tuple'
        return Array.isArray(value) && value.length === of.length ? firstUnreadable(value.map((v, i) => [v, of[i]])) : own;
    }
  }

  function firstUnreadable(parts) {
    for (const [value, form] of parts) {
      const found = unreadable(value, form);
      if (found !== null) return found;
    }
    return null;
  }

  // json.dumps(value, ensure_ascii=False), as Python prints a value it rejects.
  function pyDumps(value) {
    if (Array.isArray(value)) return '[' + value.map(pyDumps).join(', ') + ']';
    if (isObject(value)) return '{' + Object.keys(value).map((k) => `${JSON.stringify(k)}: ${pyDumps(value[k])}`).join(', ') + '}';
    return typeof value === 'bigint' ? String(value) : JSON.stringify(value);
  }

  // Why the house rules cannot be read (with_overrides' words), or null; combinations a convention refuses are
  // the engine's to judge.
  function houseRulesProblem(overrides) {
    const parameters = registry().parameters;
    for (const [path, value] of Object.entries(overrides)) {
      if (!has(parameters, path)) {
        const tail = path.split('.').pop();
        const near = Object.keys(parameters).filter((p) => p.split('.').pop() === tail).sort();
        return `convention.${path}: no such parameter (see docs/conventions.md)${near.length ? `; did you mean ${near.join(' or ')}?` : ''}`;
      }
      const found = unreadable(value, parameters[path]);
      if (found !== null) {
        return `convention.${path}: expected ${found[0].expected}, got ${Array.from(pyDumps(found[1])).slice(0, 60).join('')}`;
      }
    }
    return null;
  }

  // The table a roster states, as far as the deal goes: the system's deck and pattern per table size.
  function tableOf(roster) {
    const system = registry().systems[roster.system];
    if (!system) {
      throw protocolError(`unknown system ${JSON.stringify(roster.system)}; known systems: ${Object.keys(registry().systems).join(', ')}`);
    }
    for (const path of Object.keys(roster.convention)) {
      if (!has(registry().parameters, path)) {
        throw protocolError(`convention override ${path}: no such parameter (see docs/conventions.md)`);
      }
      if (DEAL_RULES.includes(path)) {
        throw protocolError(`the house rule ${path} changes the deal, and this page does not apply it: use fairdeal verify`);
      }
    }
    const n = roster.seats.length;
    if (!system.players.includes(n)) {
      throw protocolError(`convention ${JSON.stringify(roster.system)} is played by ${system.players.join(', ')} players, not ${n}`);
    }
    return { deck: system.deck, pattern: system.patterns[String(n)] };
  }

  // ---- signed envelopes (fairdeal/protocols/signed.py) -----------------------------------------------------
  const ENVELOPE_FIELDS = ['body', 'hand', 'kind', 'prev', 'sender', 'signature'];
  const KIND = /^[a-z][a-z0-9-]{0,39}$/; // every kind is a word: nothing a report could not print on one line

  function parseEnvelope(doc, where) {
    const bad = (field, what) => new Refused(`${where}.${field}: ${what}`, SERVICE, 'message form');
    if (!isObject(doc) || Object.keys(doc).sort().join() !== ENVELOPE_FIELDS.join()) {
      throw bad('*', `a message has exactly the fields ${ENVELOPE_FIELDS.join(', ')}`);
    }
    if (doc.sender !== SERVICE && !(isInt(doc.sender) && doc.sender >= 0 && doc.sender < 16)) {
      throw bad('sender', "a seat number or 'service' is expected");
    }
    if (typeof doc.kind !== 'string' || !KIND.test(doc.kind)) throw bad('kind', 'a message kind (a lowercase word, hyphens allowed) is expected');
    if (!isNatural(doc.hand)) throw bad('hand', 'a hand number is expected');
    if (!isObject(doc.body)) throw bad('body', 'an object is expected');
    if (!isHex(doc.prev, 32)) throw bad('prev', '64 lowercase hex digits are expected');
    if (!isHex(doc.signature, 64)) throw bad('signature', '128 lowercase hex digits are expected');
    const content = encode({ sender: doc.sender, kind: doc.kind, hand: doc.hand, body: doc.body, prev: doc.prev });
    return {
      sender: doc.sender, kind: doc.kind, hand: doc.hand, body: doc.body, prev: doc.prev, signature: doc.signature,
      content,
      digest: sha256Hex(concat([content, fromHex(doc.signature)])),
    };
  }

  function describe(sender, roster) {
    return sender === SERVICE ? SERVICE : (roster.seats[sender] ? `player ${roster.seats[sender].name}` : `seat ${sender}`);
  }

  // signature === false: every check but the signature's (signed.py: open_checked), for a hand whose parties'
  // last signatures cover the message (attested).
  function openChecked(envelope, roster, hand, prev, signature = true) {
    const who = describe(envelope.sender, roster);
    const refuse = (check, what) => new Refused(`${envelope.kind} from ${who} (hand ${envelope.hand}): ${what}`, SERVICE, check);
    const key = envelope.sender === SERVICE ? roster.service : roster.seats[envelope.sender]?.key;
    if (key === undefined) throw refuse('sender', 'the sender is not on the roster');
    if (signature && !signatureHolds(envelope, roster, key)) {
      throw refuse('signature', `the signature does not verify under ${who}'s identity key for this table, session and roster: not their statement`);
    }
    if (envelope.hand !== hand) throw refuse('context', `signed for hand ${envelope.hand}, presented in hand ${hand}: a replay`);
    if (prev !== null && envelope.prev !== prev) {
      throw refuse('chain link', 'it does not follow the message before it (dropped, reordered or spliced)');
    }
    return envelope;
  }

  function signatureHolds(envelope, roster, key) {
    const signed = concat([context(SIGNED_DOMAIN, roster.table, roster.session, envelope.hand, roster.hash), envelope.content]);
    return verifySignature(key, signed, envelope.signature);
  }

  // ---- message bodies (commit_reveal4/messages.py) ---------------------------------------------------------
  const hex32 = (v) => isHex(v, 32);
  const BODIES = {
    'session-open': { hands: isNatural, anchor: hex32 },
    'session-accept': { roster: hex32 },
    'hand-open': { attempt: isNatural, dealer: isNatural, commitment: hex32, beacon: (v) => v === null || hex32(v) },
    'seed-commit': { attempt: isNatural, commitment: hex32 },
    'reveal-request': { attempt: isNatural },
    'seed-reveal': { attempt: isNatural, seed: hex32 },
    'hand-close': {
      attempt: isNatural, seed: hex32, deck_order: (v) => Array.isArray(v) && v.every((c) => typeof c === 'string'),
      deal: isObject, record: (v) => v === null || isObject(v),
    },
    'record-sign': { record: hex32 },
    refusal: { step: (v) => typeof v === 'string', check: (v) => typeof v === 'string', reason: (v) => typeof v === 'string' },
    abort: { attempt: isNatural, step: (v) => typeof v === 'string', missing: (v) => Array.isArray(v) && v.every(isNatural), request: hex32 },
    settlement: { hands: isNatural, amounts: (v) => isObject(v) && Object.values(v).every((a) => typeof a === 'string') },
    'settlement-sign': { settlement: hex32 },
    end: { hand: isNatural, step: (v) => typeof v === 'string', charged: (v) => Array.isArray(v) && v.every(isNatural), evidence: hex32 },
  };
  const FROM_SERVICE = ['session-open', 'hand-open', 'reveal-request', 'hand-close', 'abort', 'settlement', 'end'];

  function checkBody(envelope, roster) {
    const who = describe(envelope.sender, roster);
    const fields = Object.prototype.hasOwnProperty.call(BODIES, envelope.kind) ? BODIES[envelope.kind] : null;
    if (fields === null) throw new Refused(`unknown message kind ${JSON.stringify(envelope.kind)}`, who, 'message kind');
    if (FROM_SERVICE.includes(envelope.kind) !== (envelope.sender === SERVICE) && envelope.kind !== 'refusal') {
      throw new Refused(`${who} may not send ${envelope.kind}`, who, 'message kind');
    }
    const have = Object.keys(envelope.body), want = Object.keys(fields);
    if (have.length !== want.length || !want.every((f) => have.includes(f))) {
      const odd = [...have.filter((f) => !want.includes(f)), ...want.filter((f) => !have.includes(f))].sort(comparePoints);
      throw new Refused(`${envelope.kind}: fields ${odd.join(', ')} missing or unknown`, who, 'message body');
    }
    for (const name of want) {
      if (!fields[name](envelope.body[name])) {
        throw new Refused(`${envelope.kind}: body.${name} has the wrong type or form`, who, 'message body');
      }
    }
  }

  // ---- derivations (commit_reveal4/derive.py, protocols/fisher_yates.py, fairdeal/deal.py) -----------------
  function session(roster) {
    const base = [roster.table, roster.session, roster.hash];
    return {
      chainStep: (hand, link) => sha256Hex(context(PROTOCOL + '/chain', ...base, hand, fromHex(link))),
      seedCommitment: (hand, attempt, seat, seed) => sha256Hex(context(PROTOCOL + '/seed', ...base, hand, attempt, seat, fromHex(seed))),
      deckInput: (hand, attempt, deck, serviceSeed, beacon, seeds) => context(PROTOCOL + '/deck', ...base, hand, attempt,
        deck, fromHex(serviceSeed), beacon === null ? new Uint8Array(0) : fromHex(beacon), ...seeds.map(fromHex)),
    };
  }

  // Unbiased Fisher-Yates (protocols/fisher_yates.py): step i = n-1..1 draws j from the next byte b accepted iff
  // b < 256 - 256 % (i+1), j = b % (i+1); null when the stream runs out.
  function drawsFromStream(stream, size) {
    const draws = [];
    let pos = 0;
    for (let i = size - 1; i > 0; i--) {
      const modulus = i + 1, limit = 256 - (256 % modulus);
      while (pos < stream.length && stream[pos] >= limit) pos += 1;
      if (pos === stream.length) return null;
      draws.push(stream[pos] % modulus);
      pos += 1;
    }
    return { draws, used: pos };
  }

  // The deck order from SHAKE256 of the deck input; a longer stream extends the same one (prefix-stable).
  function deriveOrder(input, deck) {
    const order = registry().decks[deck].slice();
    let found = null;
    for (let length = STREAM_BYTES; found === null; length *= 2) {
      found = drawsFromStream(noble().shake256(input, { dkLen: length }), order.length);
    }
    found.draws.forEach((j, k) => {
      const i = order.length - 1 - k;
      [order[i], order[j]] = [order[j], order[i]];
    });
    return order;
  }

  // The deal as the log writes it (protocols/transcript.seat_deal): hands by seat ([] for a seat that sits out),
  // the talons, and the dummy's hand (or the hand laid aside) when the pattern deals one to nobody at the table.
  function seatDeal(order, patternName, dealer, numSeats) {
    const p = registry().patterns[patternName];
    const byReceiver = Array.from({ length: p.hands + p.talons }, () => []);
    p.targets.forEach((target, position) => byReceiver[target].push(order[position]));
    const players = [...Array(p.hands).keys()].filter((h) => h !== p.dummy_hand && h !== p.aside_hand);
    const hands = Array.from({ length: numSeats }, () => []);
    const extra = [];
    for (let h = 0; h < p.hands; h++) {
      const index = players.indexOf(h);
      if (index < 0) extra.push(byReceiver[h]);
      else hands[(dealer + 1 + index) % numSeats] = byReceiver[h];
    }
    const out = { hands, talons: byReceiver.slice(p.hands) };
    if (extra.length) out.dummy = extra[0];
    return out;
  }

  const same = (a, b) => encodeText(a) === encodeText(b);

  // record_form.py: a signed record writes each fraction of the log (a half whist) as its exact text "p/q".
  function exactText(x) {
    let denominator = 1n;
    let scaled = x;
    while (!Number.isInteger(scaled)) {
      scaled *= 2; // exact: a double times two stays a double until it is a whole number
      denominator *= 2n;
    }
    let numerator = BigInt(scaled);
    while (denominator > 1n && numerator % 2n === 0n) {
      numerator /= 2n;
      denominator /= 2n;
    }
    return `${numerator}/${denominator}`;
  }

  function signedRecord(value) {
    if (typeof value === 'number') return Number.isInteger(value) ? value : exactText(value);
    if (Array.isArray(value)) return value.map(signedRecord);
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, signedRecord(v)]));
    return value;
  }

  // ---- one document (check.py: check_document) -------------------------------------------------------------
  function handGrammar(n) {
    const seats = [...Array(n).keys()];
    return [[SERVICE, 'hand-open'], ...seats.map((s) => [s, 'seed-commit']), [SERVICE, 'reveal-request'],
      ...seats.map((s) => [s, 'seed-reveal']), [SERVICE, 'hand-close'], ...seats.map((s) => [s, 'record-sign'])];
  }

  function attemptsGrammar(items, n) {
    const full = handGrammar(n);
    if (!Array.isArray(items)) return full;
    const grammar = [];
    let start = 0;
    items.forEach((item, index) => {
      if (isObject(item) && item.kind === 'abort') {
        grammar.push(...full.slice(0, index - start), [SERVICE, 'abort']);
        start = index + 1;
      }
    });
    return grammar.concat(full);
  }

  function walk(c, items, where, hand, grammar, prev) {
    const roster = c.roster;
    if (!Array.isArray(items)) { c.fail(SERVICE, 'transcript form', `${where}: a list of messages is expected`); return null; }
    const opened = [];
    for (let index = 0; index < items.length; index++) {
      let envelope;
      try {
        envelope = openChecked(parseEnvelope(items[index], `${where}[${index}]`), roster, hand, prev);
        checkBody(envelope, roster);
      } catch (error) {
        if (!(error instanceof Refused)) throw error;
        c.fail(error.party, error.check, `${where}[${index}]: ${error.message}`);
        return null;
      }
      if (envelope.kind === 'refusal') {
        const party = c.failures.length ? SERVICE : roster.party(envelope.sender);
        c.partial = [...opened, envelope];
        c.stop = { party, check: 'refusal', detail: `${roster.party(envelope.sender)} refused at ${envelope.body.step}: ${envelope.body.reason}` };
        c.failures.push(c.stop);
        return null;
      }
      const expected = grammar[index];
      if (expected && envelope.sender === expected[0] && expected[0] !== SERVICE && envelope.kind !== expected[1]) {
        // Signed by the seat whose answer belongs here and chained to what it answers: its own wrong answer.
        const party = roster.party(envelope.sender);
        c.fail(party, 'message order', `${where}[${index}]: ${party} answered with ${envelope.kind} where its ${expected[1]} belongs`);
        return null;
      }
      if (!expected || envelope.sender !== expected[0] || envelope.kind !== expected[1]) {
        c.fail(SERVICE, 'message order', `${where}[${index}]: ${envelope.kind} from ${roster.party(envelope.sender)} is not the protocol's next message`);
        return null;
      }
      opened.push(envelope);
      prev = envelope.digest;
    }
    c.messages = opened;
    if (opened.length < grammar.length) {
      const [sender, kind] = grammar[opened.length];
      c.partial = opened;
      c.stop = { party: roster.party(sender), check: `missing ${kind}`, detail: "the transcript ends where this party's message belongs, after the signed message asking for it" };
      c.failures.push(c.stop);
      return null;
    }
    return opened;
  }

  // A whole hand's messages with only each party's last signature checked (check.py: _attested): a signature
  // covers the digest of the message before it, so link by link every message before it; null when the hand is
  // not whole or anything fails, for walk() to check every signature in order and name the first fault.
  function attested(roster, items, hand, grammar) {
    if (!Array.isArray(items) || items.length !== grammar.length) return null;
    const opened = [];
    let prev = null;
    try {
      for (let index = 0; index < items.length; index++) {
        const envelope = openChecked(parseEnvelope(items[index], '$'), roster, hand, prev, false);
        if (envelope.sender !== grammar[index][0] || envelope.kind !== grammar[index][1]) return null;
        checkBody(envelope, roster);
        opened.push(envelope);
        prev = envelope.digest;
      }
    } catch (error) {
      if (error instanceof Refused) return null;
      throw error;
    }
    const last = new Map(opened.map((e) => [e.sender, e]));
    for (const envelope of last.values()) {
      const key = envelope.sender === SERVICE ? roster.service : roster.seats[envelope.sender].key;
      if (!signatureHolds(envelope, roster, key)) return null;
    }
    return opened;
  }

  function newChecked(source, doc) {
    const c = { source, doc, hand: null, roster: null, table: null, failures: [], firstPrev: null, openingLast: null,
      last: null, anchor: null, hands: null, dealer: null, record: null, deal: null, close: null, deckInput: null,
      settlement: null, messages: [], aborts: [], notes: [], partial: [], stop: null, end: null };
    c.fail = (party, check, detail) => c.failures.push({ party, check, detail });
    return c;
  }

  function checkDocument(source, doc, pins, chains) {
    const c = newChecked(source, doc);
    const isSettlement = doc.format === SETTLEMENT_FORMAT;
    const expected = ['format', 'version', 'protocol', 'roster', 'opening', 'messages'].concat(isSettlement ? [] : ['hand']);
    const have = Object.keys(doc);
    if (have.length !== expected.length || !expected.every((k) => have.includes(k)) ||
        ![FORMAT, SETTLEMENT_FORMAT].includes(doc.format) || doc.version !== VERSION) {
      c.fail(SERVICE, 'transcript form', `a version ${VERSION} document has exactly ${expected.sort().join(', ')}`);
      return c;
    }
    const hand = isSettlement ? 0 : doc.hand;
    if (!isInt(hand) || hand < (isSettlement ? 0 : 1)) {
      c.fail(SERVICE, 'transcript form', '$.hand: a hand number is expected');
      return c;
    }
    c.hand = isSettlement ? null : hand;
    if (!checkRoster(c, pins) || !checkOpening(c)) return c;
    if (isSettlement) checkSettlementMessages(c);
    else checkHandMessages(c, hand, chains);
    return c;
  }

  function checkRoster(c, pins) {
    let roster;
    try {
      roster = readRoster(c.doc.roster, '$.roster');
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      c.fail(SERVICE, 'roster', error.message);
      return false;
    }
    try {
      checkRosterSignatures(roster);
    } catch (error) {
      c.fail(SERVICE, 'roster signature', `${error.message} (the publisher's roster is not what that party signed)`);
      return false;
    }
    c.roster = roster;
    try {
      c.table = tableOf(roster);
    } catch (error) {
      c.fail(SERVICE, 'table statement', error.message);
      return false;
    }
    if (pins.roster && pins.roster.hash !== roster.hash) {
      c.fail(SERVICE, 'roster pin', "the transcript's roster is not the pinned roster");
    }
    for (const [who, key] of pins.keys) {
      const seat = who === SERVICE ? SERVICE : roster.seats.findIndex((s, i) => who === String(i) || who === s.name);
      if (seat === -1) c.fail(SERVICE, 'identity pin', `${JSON.stringify(who)} is not a seat, a name or 'service' of this roster`);
      else if (roster.keyOf(seat) !== key) {
        c.fail(SERVICE, 'identity pin', `${roster.party(seat)} holds key ${roster.keyOf(seat).slice(0, 16)}…, pinned ${key.slice(0, 16)}…`);
      }
    }
    return !c.failures.length;
  }

  function checkOpening(c) {
    const roster = c.roster;
    const grammar = [[SERVICE, 'session-open'], ...roster.seats.map((_, s) => [s, 'session-accept'])];
    const opened = walk(c, c.doc.opening, '$.opening', 0, grammar, roster.hash);
    if (opened === null) return false;
    for (const envelope of opened.slice(1)) {
      if (envelope.body.roster !== roster.hash) c.fail(roster.party(envelope.sender), 'session acceptance', 'accepts another roster');
    }
    c.anchor = opened[0].body.anchor;
    c.hands = opened[0].body.hands;
    if (!(c.hands >= 1 && c.hands <= MAX_SESSION_HANDS)) {
      c.fail(SERVICE, 'session open', `a session holds 1..${MAX_SESSION_HANDS} hands, not ${c.hands}`);
    }
    c.openingLast = opened[opened.length - 1].digest;
    return !c.failures.length;
  }

  function checkAborts(c, opened, n) {
    const roster = c.roster;
    let attempt = 0, start = 0;
    opened.forEach((envelope, index) => {
      const stated = Object.prototype.hasOwnProperty.call(envelope.body, 'attempt') ? envelope.body.attempt : attempt;
      if (stated !== attempt) c.fail(SERVICE, 'attempt', `message ${index} belongs to attempt ${attempt}`);
      if (envelope.kind !== 'abort') return;
      const segment = opened.slice(start, index);
      const revealing = segment.length > 1 + n;
      const [step, missing] = revealing ? ['seed-reveal', segment.length - 2 - n] : ['seed-commit', segment.length - 1];
      const request = revealing ? segment[1 + n] : segment[0];
      const body = envelope.body;
      if (request === undefined || missing >= n) {
        c.fail(SERVICE, 'abort', `attempt ${attempt}: every seat answered the signed request: the service aborted a deal it could see`);
      } else if (body.step !== step || !same(body.missing, [missing]) || body.request !== request.digest) {
        c.fail(SERVICE, 'abort', `attempt ${attempt}: the abort does not name seat ${missing}, the first seat without an answer to the signed ${request.kind}`);
      } else {
        c.aborts.push(`hand ${envelope.hand}: attempt ${attempt} aborted: ${roster.party(missing)} did not answer the service's signed ${request.kind}; dealt again from fresh seeds`);
      }
      attempt += 1;
      start = index + 1;
    });
    return opened.slice(start);
  }

  function checkHandMessages(c, hand, chains) {
    const roster = c.roster;
    if (hand > c.hands) { c.fail(SERVICE, 'hand number', `hand ${hand} is beyond the session's ${c.hands} hands`); return; }
    const items = c.doc.messages;
    if (Array.isArray(items) && items.length && isObject(items[0])) c.firstPrev = items[0].prev;
    const n = roster.seats.length;
    const grammar = attemptsGrammar(items, n);
    const every = attested(roster, items, hand, grammar) || walk(c, items, '$.messages', hand, grammar, null);
    if (every === null) {
      const before = c.failures.length;
      checkAborts(c, c.messages, n);
      if (c.failures.length > before) c.failures = c.failures.filter((f) => f.party === SERVICE || !f.check.startsWith('missing '));
      if (c.stop !== null && c.partial.length) c.last = c.partial[c.partial.length - 1].digest;
      if (c.stop !== null && c.failures.includes(c.stop) && c.partial.some((e) => e.kind === 'hand-close')) {
        judgeStoppedClose(c, hand, chains, n);
      }
      return;
    }
    c.messages = every;
    c.last = every[every.length - 1].digest;
    checkAttempt(c, hand, chains, every, n);
  }

  // A hand stopped after its hand-close (a countersignature missing, or refused): what the close states is checked
  // as in a whole hand, so an evening's end can tell a founded refusal from one without cause.
  function judgeStoppedClose(c, hand, chains, n) {
    c.failures = c.failures.filter((f) => f !== c.stop);
    const stopped = c.partial.filter((e) => e.kind !== 'refusal');
    c.messages = stopped;
    c.last = c.partial[c.partial.length - 1].digest;
    checkAttempt(c, hand, chains, stopped, n);
    c.failures.push(c.stop);
  }

  function checkAttempt(c, hand, chains, every, n) {
    const roster = c.roster;
    const opened = checkAborts(c, every, n);
    const attempt = opened[0].body.attempt;
    const s = session(roster);
    const head = opened[0], commits = opened.slice(1, 1 + n), reveals = opened.slice(2 + n, 2 + 2 * n);
    const close = opened[2 + 2 * n], signs = opened.slice(3 + 2 * n);
    const openings = every.filter((e) => e.kind === 'hand-open');
    c.dealer = head.body.dealer;
    if (c.dealer >= n || openings.some((e) => e.body.dealer !== c.dealer)) {
      c.fail(SERVICE, 'dealer', `dealer seat ${c.dealer} is not at the table, or changed between attempts`);
    }
    if (openings.some((e) => e.body.commitment !== head.body.commitment)) {
      c.fail(SERVICE, 'commitment in chain', 'the service commitment changed between attempts');
    }
    if (!inChain(s, roster.hash, c.anchor, hand, head.body.commitment, chains)) {
      c.fail(SERVICE, 'commitment in chain', `the hand's commitment is not link ${hand - 1} of the anchored chain`);
    }
    const seeds = [];
    commits.forEach((commit, i) => {
      const reveal = reveals[i];
      if (s.seedCommitment(hand, attempt, reveal.sender, reveal.body.seed) !== commit.body.commitment) {
        c.fail(roster.party(reveal.sender), 'seed opening', "the seed does not open the player's commitment");
      }
      seeds.push(reveal.body.seed);
    });
    if (s.chainStep(hand, close.body.seed) !== head.body.commitment) {
      c.fail(SERVICE, 'reveal', "the revealed seed does not open the service's commitment");
    }
    c.record = close.body.record;
    c.deal = close.body.deal;
    c.close = close;
    const recordHash = sha256Hex(encode(close.body.record));
    for (const sign of signs) {
      if (sign.body.record !== recordHash) c.fail(roster.party(sign.sender), 'record countersignature', 'countersigns another record');
    }
    if (!c.failures.some((f) => f !== c.stop)) {
      c.deckInput = s.deckInput(hand, attempt, c.table.deck, close.body.seed, head.body.beacon, seeds);
    }
  }

  // Is the commitment link hand-1 of the chain anchored at the anchor? Hashes down to a link already proven.
  function inChain(s, rosterHash, anchor, hand, commitment, chains) {
    const id = rosterHash + '/' + anchor;
    if (!chains.has(id)) chains.set(id, new Map([[0, anchor]]));
    const known = chains.get(id);
    let link = commitment, index = hand - 1;
    const path = [];
    while (known.get(index) !== link) {
      if (index === 0 || path.length > MAX_SESSION_HANDS) return false;
      path.push([index, link]);
      link = s.chainStep(index, link);
      index -= 1;
    }
    for (const [i, l] of path) known.set(i, l);
    return true;
  }

  function checkSettlementMessages(c) {
    const roster = c.roster;
    const items = c.doc.messages;
    if (Array.isArray(items) && items.length && isObject(items[0])) c.firstPrev = items[0].prev;
    const charged = statedCharge(items);
    const head = (charged !== null ? [[SERVICE, 'end']] : []).concat([[SERVICE, 'settlement']]);
    const expected = roster.seats.map((_, s) => s).filter((s) => !(charged || []).includes(s));
    const rest = Array.isArray(items) ? items.slice(head.length) : [];
    const grammar = head.concat(signers(rest, expected).map((s) => [s, 'settlement-sign']));
    let opened = walk(c, items, '$.messages', 0, grammar, null);
    if (opened === null && c.stop !== null && c.stop.check === 'refusal') opened = refusedSettlement(c);
    if (opened === null) return;
    if (charged !== null) { c.end = opened[0]; opened = opened.slice(1); }
    c.settlement = opened[0];
    c.last = opened[opened.length - 1].digest;
    for (const sign of opened.slice(1)) {
      if (sign.body.settlement !== opened[0].digest) {
        c.fail(roster.party(sign.sender), 'settlement countersignature', 'countersigns another settlement');
      }
    }
    if (c.stop !== null) return; // refused: the evening did not settle, and nobody after the refuser was asked
    const signed = new Set(opened.slice(1).map((sign) => sign.sender));
    for (const seat of expected.filter((s) => !signed.has(s))) {
      c.notes.push(`${roster.party(seat)} did not countersign the settlement (absent, or dropped by the relay: its own signed ` +
        "copy, chained to the service's signed settlement, would show which); the settlement stands: its amounts " +
        'are the replayed sheet of the records every seat countersigned');
    }
  }

  // check.py's _refused_settlement: the messages before a seat's refusal, checked as a settlement's, so that the
  // session tells a founded refusal (the settlement, its end or its place is wrong: the publisher's fault) from one
  // without cause (``settlement refusal``, the refuser's).
  function refusedSettlement(c) {
    const opened = c.partial.slice(0, -1);
    if (!opened.length || (opened[0].kind === 'end' && opened.length < 2)) return null;
    const refusal = c.partial[c.partial.length - 1];
    c.failures = c.failures.filter((f) => f !== c.stop);
    c.stop = { party: c.stop.party, check: 'settlement refusal', detail: `${c.roster.party(refusal.sender)} refused the settlement: ${refusal.body.reason}` };
    c.failures.push(c.stop);
    return opened;
  }

  // check.py's _signers: the seats whose countersignatures the grammar expects, read from the unverified senders:
  // in seat order, each once, a seat that sent none left out; a sender out of that order is expected as the next
  // seat, so the walk names it.
  function signers(items, expected) {
    const seats = [];
    for (const item of items) {
      const sender = isObject(item) ? item.sender : undefined;
      const later = expected.filter((s) => !seats.length || s > seats[seats.length - 1]);
      if (later.includes(sender)) seats.push(sender);
      else if (later.length) seats.push(later[0]);
    }
    return seats;
  }

  // The seats an evening's end (the settlement document's first message) says it charges, read unverified to shape
  // the grammar: the charged party does not countersign its own end; every message is checked after.
  function statedCharge(items) {
    if (!Array.isArray(items) || !items.length || !isObject(items[0]) || items[0].kind !== 'end') return null;
    const charged = isObject(items[0].body) ? items[0].body.charged : null;
    return Array.isArray(charged) ? charged.filter(isInt) : [];
  }

  function checkDeck(c) {
    if (c.deckInput === null) return;
    const n = c.roster.seats.length;
    const order = deriveOrder(c.deckInput, c.table.deck);
    if (!same(c.close.body.deck_order, order)) {
      c.fail(SERVICE, 'deck derivation', 'the published deck order is not the one the seeds derive');
      c.deckInput = null;
      return;
    }
    if (!same(c.close.body.deal, seatDeal(order, c.table.pattern, c.dealer || 0, n))) {
      c.fail(SERVICE, 'deal pattern', `the published deal does not follow pattern ${c.table.pattern}`);
      c.deckInput = null;
    }
  }

  // ---- the session (check.py: check_session) ---------------------------------------------------------------
  function checkSession(group, late, notes, replayer) {
    const hands = group.filter((c) => c.hand !== null).sort((a, b) => a.hand - b.hand);
    const settlements = group.filter((c) => c.hand === null);
    let previous = null;
    for (const c of hands) {
      if (previous !== null && previous.hand === c.hand) {
        late.push([c, SERVICE, 'hand sequence', `hand ${c.hand} appears twice (${previous.source})`]);
        continue;
      }
      const expectedHand = previous === null ? 1 : previous.hand + 1;
      if (c.hand !== expectedHand) {
        late.push([c, SERVICE, 'hand sequence', `hand ${expectedHand} is missing before hand ${c.hand}`]);
      } else {
        const link = previous === null ? c.openingLast : previous.last;
        if (link !== null && c.firstPrev !== link) {
          late.push([c, SERVICE, 'chain link', 'the hand does not follow the message chain before it']);
        }
      }
      previous = c;
    }
    for (const s of settlements) {
      if (s.settlement === null) continue;
      const stated = s.settlement.body.hands;
      const numbers = hands.map((c) => c.hand);
      const last = hands[hands.length - 1];
      const full = numbers.length === Number(stated) + (s.end !== null ? 1 : 0) && numbers.every((h, i) => h === i + 1);
      if (!full) {
        late.push([s, SERVICE, 'session length', `the settlement closes ${stated} hands; hands given: ${numbers.slice(0, 12).join(', ') || 'none'} (spliced or truncated)`]);
      } else if (s.end !== null && (s.end.body.hand !== last.hand || s.end.body.evidence !== last.last)) {
        late.push([s, SERVICE, 'end', 'the end does not cite the last message of the last hand given']);
      } else if (hands.length && hands[hands.length - 1].last !== null && s.firstPrev !== hands[hands.length - 1].last) {
        late.push([s, SERVICE, 'chain link', "the settlement does not follow the last hand's messages"]);
      } else if (!hands.length && s.firstPrev !== s.openingLast) {
        late.push([s, SERVICE, 'chain link', 'the settlement does not follow the session opening']);
      }
    }
    if (!settlements.length) notes.push(`${group[0].source}: no signed settlement given: the session may go on after its last hand here`);
    if (replayer) {
      checkRecords(hands, settlements, late, notes, replayer);
      for (const s of settlements.filter((x) => x.stop !== null && x.failures.includes(x.stop))) judgeSettlementRefusal(s, late, notes);
      return;
    }
    const last = hands[hands.length - 1];
    const ended = last && last.stop !== null && last.partial.length ? last : null;
    const faults = ended === null ? [] : judgeRefusal(ended, notes);
    const ending = settlements.find((s) => s.end !== null);
    if (ending) checkEnd(ending, ended, faults, late, notes);
    for (const c of hands) if (c !== ended) checkRecordCards(c, late, notes);
  }

  // check.py's _check_records: the records of the hands played to their end replayed and scored in order by the
  // engine (the page's Pyodide), a refused record replayed on the sheet before it, the end's charge, and each
  // settlement against the sheet they settle to.
  function checkRecords(hands, settlements, late, notes, replayer) {
    if (!hands.length) return;
    const roster = hands[0].roster;
    const evening = replayer.open({ system: roster.system, convention: roster.convention, pulya: roster.pulya, seats: roster.seats.map((s) => s.name) });
    if (typeof evening === 'string') {
      for (const c of hands) late.push([c, SERVICE, 'table statement', evening]);
      return;
    }
    const ending = settlements.find((s) => s.end !== null);
    const last = hands[hands.length - 1];
    const ended = last.stop !== null && last.partial.length ? last : null;
    const played = ended !== null ? hands.slice(0, -1) : hands;
    let problems = [];
    if (played.length) {
      const found = evening.played(played.map(recordDoc), played.map((c) => c.deckInput !== null && !c.failures.length));
      problems = found.problems;
      for (const [index, check, detail] of problems) late.push([played[index], RECORD, check, detail]);
      for (const [index, text] of found.notes) notes.push(`${played[index].source}: hand ${played[index].hand}: ${text}`);
    }
    const faults = ended === null ? [] : judgeRefusal(ended, notes, (c) => {
      const found = evening.refused(recordDoc(c)).map(([check, detail]) => ({ party: RECORD, check, detail }));
      for (const f of found) late.push([c, f.party, f.check, f.detail]);
      return found;
    });
    const charged = ending ? checkEnd(ending, ended, faults, late, notes) : [];
    for (const s of settlements) {
      if (s.settlement === null || problems.length) continue;
      const expected = evening.due(charged);
      if (expected === null) continue;
      if (!same(s.settlement.body.amounts, expected)) {
        late.push([s, SERVICE, 'settlement', `the replayed sheet settles to ${pyRepr(expected)}`]);
      }
    }
  }

  // check.py's _judge_settlement_refusal: a refused settlement did not settle the evening; the refusal was founded
  // if what it refused is wrong (the settlement, its end or place, or the records it settles: the publisher's fault,
  // named by those checks; the refusal is then a note), and otherwise stays the refuser's.
  function judgeSettlementRefusal(s, late, notes) {
    const faults = s.failures.filter((f) => f !== s.stop).concat(late.filter(([c, party]) => c === s || party === RECORD));
    if (faults.length) {
      s.failures = s.failures.filter((f) => f !== s.stop);
      notes.push(`${s.source}: a founded refusal (${s.stop.detail})`);
    }
  }

  function recordDoc(c) {
    const doc = { hand: c.hand, dealer: c.dealer, deal: c.deal };
    if (c.record !== null && c.record !== undefined) doc.record = c.record;
    return doc;
  }

  // The faults in what a hand that stopped short had published (its deal, and with the engine, a refused record
  // replayed on the sheet before it): a refusal with such a fault was founded, a note, not the refuser's fault.
  function judgeRefusal(ended, notes, replayRefused) {
    let faults = ended.failures.filter((f) => f !== ended.stop);
    const refused = ended.partial[ended.partial.length - 1].kind === 'refusal';
    if (replayRefused && refused && !faults.length && ended.record !== null && ended.record !== undefined) {
      faults = replayRefused(ended);
    }
    if (refused && faults.length && ended.failures.includes(ended.stop)) {
      ended.failures = ended.failures.filter((f) => f !== ended.stop);
      notes.push(`${ended.source}: hand ${ended.hand}: a founded refusal (${ended.stop.detail})`);
    }
    return faults;
  }

  const MAX_ATTEMPTS = 3; // deals of one hand: after the third abort the evening ends

  // parties.py's proven_absent: the seat each valid abort proves absent, in order (an abort is valid when it names
  // the first seat without an answer to the signed request it cites).
  function provenAbsent(messages, n) {
    const absent = [];
    let start = 0;
    messages.forEach((envelope, index) => {
      if (envelope.kind !== 'abort') return;
      const attempt = messages.slice(start, index);
      start = index + 1;
      const asked = attempt.filter((e) => e.kind === 'reveal-request');
      const [step, request] = asked.length ? ['seed-reveal', asked[0]] : ['seed-commit', attempt[0]];
      const answered = attempt.filter((e) => e.kind === step).length;
      const body = envelope.body;
      if (request !== undefined && answered < n && body.step === step && same(body.missing, [answered]) && body.request === request.digest) {
        absent.push(answered);
      }
    });
    return absent;
  }

  // parties.py's end_charge over a hand's messages (every attempt): after its last abort, every seat the valid
  // aborts prove absent; for a refusal, the seat at fault in what it refused (none when that is the service), else
  // the refuser; otherwise the first seat without a countersignature after the signed hand-close.
  function endCharge(roster, messages, faultParty) {
    const last = messages[messages.length - 1];
    if (last.kind === 'abort') return provenAbsent(messages, roster.seats.length);
    if (last.kind === 'refusal') {
      if (faultParty === null) return [last.sender];
      const seats = roster.seats.map((_, i) => i).filter((i) => roster.party(i) === faultParty);
      return seats.slice(0, 1);
    }
    let close = -1;
    messages.forEach((e, i) => { if (e.kind === 'hand-close') close = i; });
    return close < 0 ? [] : [messages.length - 1 - close];
  }

  // parties.py's end_problem: an aborted hand is dealt again until its MAX_ATTEMPTS-th abort.
  function endProblem(messages) {
    const aborts = messages.filter((e) => e.kind === 'abort').length;
    if (messages.length && messages[messages.length - 1].kind === 'abort' && aborts < MAX_ATTEMPTS) {
      return `a hand aborted ${aborts} time(s) is dealt again (up to ${MAX_ATTEMPTS} attempts), not ended`;
    }
    return null;
  }

  // fairdeal.errors.one_line of printable text: at most `limit` code points, the middle cut.
  const QUOTE_CHARS = 40;
  function oneLine(text, limit) {
    const points = Array.from(text);
    if (points.length <= limit) return text;
    const half = Math.floor((limit - 20) / 2);
    const cut = String(points.length - 2 * half).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return `${points.slice(0, half).join('')}…(${cut} chars)…${points.slice(-half).join('')}`;
  }

  // Python's repr() of a JSON value: findings and refusals read byte for byte as Python's. Of ASCII text only; an object's integer-like keys come first in JavaScript, not in the order read.
  const CONTROL = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };
  function pyRepr(value) {
    if (value === null || value === undefined) return 'None';
    if (value === true || value === false) return value ? 'True' : 'False';
    if (typeof value === 'string') {
      const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
      const escaped = value.replace(/\\/g, '\\\\').split(quote).join('\\' + quote);
      // eslint-disable-next-line no-control-regex -- control characters are exactly what repr escapes
      return quote + escaped.replace(/[\x00-\x1f\x7f]/g, (c) => CONTROL[c] || `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`) + quote;
    }
    if (Array.isArray(value)) return '[' + value.map(pyRepr).join(', ') + ']';
    if (typeof value === 'object') return '{' + Object.keys(value).map((k) => `${pyRepr(k)}: ${pyRepr(value[k])}`).join(', ') + '}';
    return String(value);
  }
  // Python's == over JSON values (1 == 1.0; a missing value is None).
  function sameValue(a, b) {
    a = a === undefined ? null : a;
    b = b === undefined ? null : b;
    if (Array.isArray(a) || Array.isArray(b)) {
      return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
    }
    if (isObject(a) || isObject(b)) {
      const keys = isObject(a) && isObject(b) ? Object.keys(a) : null;
      return keys !== null && keys.length === Object.keys(b).length && keys.every((k) => has(b, k) && sameValue(a[k], b[k]));
    }
    if (typeof a !== 'bigint' && typeof b !== 'bigint') return a === b;
    const whole = (v) => typeof v === 'bigint' || Number.isInteger(v);
    return whole(a) && whole(b) && BigInt(a) === BigInt(b);
  }
  // An evening's end (check.py: _check_end): it must cite the hand that stopped short and charge exactly the party
  // the evidence proves at fault. The hand is then void and its stop a note.
  function checkEnd(s, ended, faults, late, notes) {
    const roster = s.roster, body = s.end.body;
    if (ended === null || ended.stop === null || !ended.partial.length) {
      late.push([s, SERVICE, 'end', `hand ${body.hand} did not stop short: nothing ends the evening`]);
      return [];
    }
    const messages = ended.partial, last = messages[messages.length - 1].kind;
    if (last !== 'refusal' && last !== 'abort' && ended.stop.check !== 'missing record-sign') {
      late.push([s, SERVICE, 'end', `a hand stopped at ${ended.stop.check} is aborted and dealt again, not ended`]);
      return [];
    }
    const problem = endProblem(messages);
    if (problem !== null) { late.push([s, SERVICE, 'end', problem]); return []; }
    const charged = endCharge(roster, messages, faults.length ? faults[0].party : null);
    const step = last === 'refusal' || last === 'abort' ? last : 'record-sign';
    const expected = { hand: ended.hand, step, charged, evidence: ended.last };
    if (!same(body, expected)) {
      const who = charged.map((seat) => roster.party(seat)).join(', ') || 'no one on the sheet';
      late.push([s, SERVICE, 'end', `the evidence proves ${who} at fault; the end states ${pyRepr(body)}`]);
      return charged;
    }
    ended.failures = ended.failures.filter((f) => f !== ended.stop);
    const who = charged.map((seat) => `${roster.party(seat)} charged`).join(', ') || 'no one charged';
    let why = `${ended.stop.party}: ${ended.stop.check}`;
    if (last === 'refusal') why = ended.stop.detail;
    else if (last === 'abort') why = `aborted ${messages.filter((e) => e.kind === 'abort').length} times`;
    notes.push(`${ended.source}: hand ${ended.hand}: the evening ends here (${why}); the hand is void; ${who} (the convention's abort penalty)`);
    return charged;
  }

  // What the page checks of a record: it is the verified deal's (hand, dealer, hands, talons, the dummy listed
  // last), and its cards are conserved: each card in the tricks and the discard is a card of the deck, none
  // played twice, none both discarded and played. Who played which card, following suit, the auction, the result
  // and the score lines are not replayed here (fairdeal verify replays them; every seated player countersigned).
  function checkRecordCards(c, late, notes) {
    if (c.record === null || c.record === undefined) return;
    if (c.deckInput === null || c.failures.length) {
      notes.push(`${c.source}: hand ${c.hand}: the deal failed verification: play and score not checked`);
      return;
    }
    const record = c.record;
    if (Object.prototype.hasOwnProperty.call(record, 'hand') && record.hand !== c.hand) {
      late.push([c, RECORD, 'hand number', `the record is hand ${record.hand}, the transcript hand ${c.hand}`]);
    }
    if (record.dealer !== c.dealer) late.push([c, RECORD, 'dealer', `the record's dealer is ${record.dealer}, the transcript's ${c.dealer}`]);
    const hands = c.deal.hands.concat(c.deal.dummy ? [c.deal.dummy] : []);
    if (!isObject(record.deal) || !same([record.deal.hands ?? null, record.deal.talons ?? null], [hands, c.deal.talons])) {
      late.push([c, RECORD, 'deal', "the record's deal is not the deal the seeds derive"]);
      return;
    }
    const deck = new Set(registry().decks[c.table.deck]);
    const tricks = Array.isArray(record.tricks) ? record.tricks : null;
    if (tricks === null || !tricks.every((t) => isObject(t) && Array.isArray(t.cards))) {
      late.push([c, RECORD, 'replay', 'the record has no list of tricks']);
      return;
    }
    const played = new Set();
    for (const [index, trick] of tricks.entries()) {
      for (const card of trick.cards) {
        if (!deck.has(card)) { late.push([c, RECORD, 'replay', `trick ${index + 1}: ${String(card).slice(0, 8)} is not a card of the deck`]); return; }
        if (played.has(card)) { late.push([c, RECORD, 'replay', `trick ${index + 1}: ${card} is played a second time`]); return; }
        played.add(card);
      }
    }
    const discard = record.discard === undefined || record.discard === null ? [] : record.discard;
    if (!Array.isArray(discard) || new Set(discard).size !== discard.length ||
        discard.some((card) => !deck.has(card) || played.has(card))) {
      late.push([c, RECORD, 'replay', 'the discard holds a card twice, a card not of the deck, or a card also played']);
    }
  }

  // ---- the whole run ---------------------------------------------------------------------------------------
  function handOf(doc) { return isInt(doc.hand) ? Number(doc.hand) : 0; }

  // ``replayer`` (FairdealEngine's, optional) replays and scores the records; without it the page checks what a
  // record's cards conserve and leaves play and score to fairdeal verify.
  function verifyDocuments(docs, pins, replayer) {
    pins = pins || { roster: null, keys: [] };
    const chains = new Map();
    const ordered = docs.map((d, i) => [d, i]).sort((a, b) => handOf(a[0].doc) - handOf(b[0].doc) || a[1] - b[1]).map((x) => x[0]);
    const checks = ordered.map(({ source, doc }) => checkDocument(source, doc, pins, chains));
    checks.forEach(checkDeck);
    const sessions = new Map();
    for (const c of checks) {
      if (c.roster === null) continue;
      if (!sessions.has(c.roster.hash)) sessions.set(c.roster.hash, []);
      sessions.get(c.roster.hash).push(c);
    }
    const late = [], notes = [];
    for (const group of sessions.values()) checkSession(group, late, notes, replayer);
    const caveats = [];
    const pinned = Boolean(pins.roster) || pins.keys.length > 0;
    if (checks.length && !pinned) {
      caveats.push('identities are unpinned: the keys checked are the ones the documents state; pin them with the roster file or a public key per seat to know who took part');
    }
    for (const c of checks) for (const text of [...c.aborts, ...c.notes]) notes.push(`${c.source}: ${text}`);
    for (const group of replayer ? [] : sessions.values()) {
      const rules = Object.keys(group[0].roster.convention);
      if (rules.length) {
        notes.push(`${group[0].source}: house rules ${rules.join(', ')}: the page does not check their values (they do not change the deal; fairdeal verify applies them)`);
      }
    }
    const failures = [];
    for (const c of checks) for (const f of c.failures) failures.push({ source: c.source, hand: c.hand, ...f });
    for (const [c, party, check, detail] of late) failures.push({ source: c.source, hand: c.hand, party, check, detail });
    return { checks, failures, notes, caveats, sessions: [...sessions.values()] };
  }

  // ---- files: transcripts, the roster, a game log ----------------------------------------------------------
  function stripBom(bytes) {
    return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  }

  // A file's kind and value: a v4 document (canonical, or refused), a roster, a game log, or what the page
  // does not verify (v3 and mental-poker transcripts).
  function readFile(name, bytes) {
    bytes = stripBom(bytes);
    let doc = null, canonicalError = null;
    try {
      doc = decode(bytes);
    } catch (error) {
      if (!(error instanceof CanonicalError)) throw error;
      canonicalError = error.message;
    }
    if (doc === null) {
      let text;
      try { text = strictUtf8.decode(bytes); } catch { return { kind: 'unreadable', name, reason: 'not UTF-8 text' }; }
      if (/^\s*\{\s*"type"\s*:\s*"table"/.test(text) || /\n\s*\{.*"type"\s*:\s*"hand"/.test(text)) return { kind: 'log', name, text };
      let loose;
      try { loose = JSON.parse(text); } catch (error) { return { kind: 'unreadable', name, reason: `not JSON: ${error.message}` }; }
      return classify(name, loose, canonicalError);
    }
    return classify(name, doc, null);
  }

  function classify(name, doc, canonicalError) {
    if (!isObject(doc)) return { kind: 'unreadable', name, reason: 'a transcript is a JSON object' };
    const protocol = typeof doc.protocol === 'string' ? doc.protocol : '';
    if (protocol === MENTAL_POKER && root.FairdealMP) {
      if (canonicalError) return { kind: 'refused', name, reason: `not canonical JSON: ${canonicalError}` };
      return { kind: doc.format === SETTLEMENT_FORMAT ? 'mp-settlement' : 'mp', name, doc };
    }
    if (protocol.startsWith('fairdeal-mental-poker')) return { kind: 'mental-poker', name };
    if (isObject(doc.roster) && isObject(doc.signatures) && Object.keys(doc).length === 2) {
      return canonicalError ? { kind: 'unreadable', name, reason: `not a roster: ${canonicalError}` } : { kind: 'roster', name, doc };
    }
    if (protocol === PROTOCOL) {
      return canonicalError ? { kind: 'refused', name, reason: `not canonical JSON: ${canonicalError}` } : { kind: 'v4', name, doc };
    }
    if (protocol.startsWith('fairdeal-commit-reveal')) return { kind: 'v3', name };
    return { kind: 'unreadable', name, reason: 'not a fairdeal transcript, roster or game log' };
  }

  function baseName(path) { return String(path).split(/[\\/]/).pop(); }

  // The file a log line cites (a path relative to the log's folder): the one given under that path, else the one
  // file of that name (a browser hands over names, or paths inside a dropped folder).
  function citedFile(files, reference) {
    const path = String(reference).replace(/^\.\//, '');
    for (const [name, file] of files) if (name === path || name.endsWith('/' + path)) return file;
    const named = [...files.values()].filter((f) => baseName(f.name) === baseName(path));
    return named.length === 1 ? named[0] : null;
  }

  // A game log (protocols/game-log.md) against the files given: each hand line cites a transcript by name and
  // SHA-256 and copies its record; the evening opens with its header and closes with the signed settlement.
  function checkLog(log, files, failures) {
    const cited = [];
    const kinds = {};
    log.text.split('\n').forEach((raw, i) => {
      const where = `${log.name}:${i + 1}`;
      if (!raw.trim()) return;
      let line;
      try { line = JSON.parse(raw); } catch (error) {
        failures.push({ source: where, hand: null, party: RECORD, check: 'game log', detail: `not a JSON line: ${error.message}` });
        return;
      }
      if (isObject(line) && (line.type === 'table' || line.type === 'end') && !kinds[line.type]) kinds[line.type] = [where, line];
      if (!isObject(line) || line.type !== 'hand') return;
      const hand = isInt(line.hand) ? line.hand : null;
      const reference = line.transcript;
      if (!isObject(reference) || typeof reference.file !== 'string') {
        failures.push({ source: where, hand, party: RECORD, check: 'transcript reference', detail: 'the hand line cites no transcript' });
        return;
      }
      const file = citedFile(files, reference.file);
      if (!file) {
        failures.push({ source: where, hand, party: RECORD, check: 'transcript reference', detail: `${reference.file} was not given to the page` });
        return;
      }
      if (file.sha256 !== reference.sha256) {
        failures.push({ source: where, hand, party: RECORD, check: 'transcript reference', detail: `${reference.file} has SHA-256 ${file.sha256}, the log cites ${reference.sha256}` });
      }
      cited.push([file, line, where]);
    });
    // A settlement a seat refused: the evening did not settle, so the log has no settlement line, and the refusal,
    // judged against the transcripts, says whose fault it was (verify.py: refused_settlement, _refused_v4_settlement).
    const refused = kinds.end ? null : [...files.values()].find((f) => settlementRefused(f) !== null) || null;
    if (!kinds.table) {
      failures.push({ source: log.name, hand: null, party: RECORD, check: 'game log', detail: 'the log has no header line' });
    } else if (!['commit-reveal', 'mental-poker'].includes(kinds.table[1].dealing)) {
      failures.push({ source: kinds.table[0], hand: null, party: RECORD, check: 'dealing', detail: `the header says the cards were dealt by ${JSON.stringify(kinds.table[1].dealing)}, not by a protocol with transcripts` });
    } else if (!refused && !cited.length && !(kinds.end && truthy(kinds.end[1].penalty))) { // may end in its first hand
      failures.push({ source: log.name, hand: null, party: RECORD, check: 'game log', detail: 'the log holds no hand: the evening stopped before its first hand was played, so there is nothing to verify' });
    } else if (!refused && !kinds.end) {
      failures.push({ source: log.name, hand: null, party: RECORD, check: 'game log', detail: `the log ends after ${cited.length} hand(s) without its settlement line: the evening was cut short` });
    }
    for (const [file, line] of cited) {
      if (file.kind !== 'v4') continue;
      const copy = Object.fromEntries(Object.entries(line).filter(([k]) => k !== 'type' && k !== 'transcript'));
      const close = Array.isArray(file.doc.messages) ? file.doc.messages.find((m) => isObject(m) && m.kind === 'hand-close') : null;
      const record = close && isObject(close.body) && close.body.record !== undefined ? close.body.record : null;
      if (!same(record, signedRecord(copy))) {
        failures.push({ source: file.name, hand: isInt(line.hand) ? line.hand : null, party: RECORD, check: 'log line', detail: "the game log's hand line differs from the record in the transcript" });
      }
      const roster = isObject(file.doc.roster) && isObject(file.doc.roster.roster) ? file.doc.roster.roster : null;
      if (kinds.table && roster !== null && !sameStatement(kinds.table[1], roster)) {
        failures.push({ source: file.name, hand: line.hand, party: RECORD, check: 'convention', detail: `the transcript's roster plays ${encodeText(roster.system)}, the log header ${JSON.stringify(kinds.table[1].system)}` });
      }
    }
    return { cited, kinds, refused };
  }

  function sameStatement(header, roster) {
    return header.system === roster.system && same(header.convention || {}, roster.convention) &&
      (header.pulya === undefined || header.pulya === null || header.pulya === roster.pulya);
  }

  // The log's closing line states the settlement; it must be the signed one (fractions as the log writes them).
  function checkLogSettlement(kinds, settlementFile, failures, unverified, replayer) {
    if (!kinds.end) return;
    if (!settlementFile) {
      failures.push({ source: 'settlement.json', hand: null, party: SERVICE, check: 'settlement', detail: "the evening's signed settlement is missing (give settlement.json to the page)" });
      return;
    }
    const messages = settlementFile.doc.messages;
    const signed = Array.isArray(messages) ? messages.find((e) => isObject(e) && e.kind === 'settlement') : null;
    const amounts = signed && isObject(signed.body) ? signed.body.amounts : null;
    if (!isObject(amounts) || !Object.values(amounts).every((text) => typeof text === 'string' && FRACTION.test(text))) {
      failures.push({ source: settlementFile.name, hand: null, party: SERVICE, check: 'settlement', detail: "the evening's signed settlement is missing or unreadable" });
      return;
    }
    const [where, end] = kinds.end;
    const stated = end.settlement;
    const matches = isObject(amounts) && isObject(stated) && Object.keys(stated).length === Object.keys(amounts).length &&
      Object.entries(amounts).every(([name, text]) => fractionMatches(stated[name], text));
    if (!matches) {
      failures.push({ source: where, hand: null, party: RECORD, check: 'settlement line', detail: `the log's settlement is not the signed one ${encodeText(amounts)}` });
    }
    const charge = signedEndPenalty(settlementFile.doc, replayer);
    const penalty = has(end, 'penalty') ? end.penalty : [];
    if (charge !== null && charge.unknown) {
      unverified.push(unverifiedPenalty(where, charge));
    } else if (charge !== null && !sameValue(penalty, charge.lines)) {
      failures.push({ source: where, hand: null, party: RECORD, check: 'end penalty', detail: `the log's end charges ${pyRepr(penalty)}, the signed end ${pyRepr(charge.lines)}` });
    }
  }

  // The score items the settlement's signed end charges (null when its roster cannot be read: its own checks name
  // it); a settlement without an end charges nothing.
  function signedEndPenalty(doc, replayer) {
    const first = doc.messages[0];
    if (!isObject(first) || first.kind !== 'end') return { lines: [] };
    let roster;
    try {
      roster = readRoster(doc.roster, '$.roster');
    } catch (error) {
      if (error instanceof Refused) return null;
      throw error;
    }
    const charged = isObject(first.body) && Array.isArray(first.body.charged) ? first.body.charged : null;
    if (charged === null || !charged.every(isInt)) return null;
    const table = { system: roster.system, convention: roster.convention, pulya: roster.pulya, seats: roster.seats.map((s) => s.name) };
    return abortPenalty(table, charged.map(Number), replayer);
  }

  // The rules abort_penalty reads: a house rule among them changes the charge in a way this page does not compute.
  const PENALTY_RULES = ['scoring.abort_penalty_undertricks', 'scoring.contract_values', 'scoring.remiz_to',
    'scoring.remiz_whist_factor'];

  // The convention's abort penalty for each ``charged`` seat, in order, as score items (engine/scoring.py:
  // abort_penalty, read from the registry the page carries, or under a house rule that changes it, computed by the
  // page's engine): {lines}, or {unknown: why the page cannot say}. ``stated``: {system, convention, pulya, seats}.
  function abortPenalty(stated, charged, replayer) {
    const { system, convention } = stated;
    const numSeats = stated.seats.length;
    const facts = registry().systems[system];
    const table = facts && isObject(facts.abort_penalty) ? facts.abort_penalty[String(numSeats)] : undefined;
    if (!Array.isArray(table)) {
      return { unknown: `this page does not know the abort penalty of ${system} at ${numSeats} seats`,
        unknownRu: `страница не знает штрафа за уход в ${system} на ${numSeats} мест` };
    }
    const rule = Object.keys(isObject(convention) ? convention : {}).find((path) => PENALTY_RULES.includes(path));
    if (rule && replayer && charged.every((seat) => seat >= 0 && seat < numSeats)) {
      const evening = replayer.open(stated);
      if (typeof evening !== 'string') return { lines: evening.penalty(charged) };
    }
    if (rule) {
      return { unknown: `the house rule ${rule} changes the abort penalty, and this page does not evaluate it`,
        unknownRu: `домашнее правило ${rule} меняет штраф за уход, а страница его не вычисляет` };
    }
    if (!charged.every((seat) => seat >= 0 && seat < numSeats)) {
      return { unknown: `a charged seat is not one of the ${numSeats} seats`, unknownRu: `оштрафованного места нет среди ${numSeats} мест` };
    }
    // In ScoreLine.to_record's key order (the registry is stored sorted), so a finding quotes them as Python does.
    const item = (line) => ({ seat: line.seat, column: line.column, points: line.points, ...(has(line, 'on') ? { on: line.on } : {}) });
    return { lines: charged.flatMap((seat) => table[seat].map(item)) };
  }

  // The end's charge the page could not compute, as an unverified item (English, then Russian).
  function unverifiedPenalty(where, charge) {
    return `${where}: the penalty of the evening's end is not checked: ${charge.unknown}; use fairdeal verify / `
      + `штраф за окончание вечера не проверен: ${charge.unknownRu}; проверьте командой fairdeal verify`;
  }

  // Python's truth of a JSON value.
  function truthy(value) {
    if (Array.isArray(value)) return value.length > 0;
    if (isObject(value)) return Object.keys(value).length > 0;
    return !(value === null || value === undefined || value === false || value === 0 || value === '');
  }

  const FRACTION = /^(-?\d+)(?:\/([1-9]\d*))?$/;

  function fractionMatches(value, text) {
    const match = FRACTION.exec(text);
    if (!match || typeof value !== 'number') return false;
    const p = Number(match[1]), q = Number(match[2] || 1);
    if (Number.isInteger(value)) return p === value * q;
    return q <= 1000 && Math.abs(value * q - p) < 1e-6 * q; // the log writes thirds and halves as floats
  }

  // Everything the page was given: the files ([{name, bytes}]), the pin lines (SEAT=PUBKEY) and the roster the
  // user pins ({name, bytes} or null: a roster among the files is the publisher's copy and pins nothing).
  function verifyFiles(inputs, pinText, pinRoster, replayer) {
    const files = new Map();
    const failures = [], notes = [], unverified = [];
    let log = null;
    const refusedUsage = (usage) => ({ ok: false, usage, failures: [], notes: [], caveats: [], unverified, proved: [], transcripts: 0 });
    for (const { name, bytes } of inputs) {
      const file = readFile(name, bytes);
      file.sha256 = sha256Hex(bytes); // the log cites the file's bytes as they are
      files.set(String(name).replace(/\\/g, '/'), file);
      if (file.kind === 'log') log = file;
      if (file.kind === 'roster') notes.push(`${name}: a roster among the files is the publisher's copy: it pins nothing (give your own copy as the roster to pin)`);
      if (file.kind === 'mental-poker') unverified.push(`${name}: a mental-poker transcript of a version this page does not verify (use fairdeal verify)`);
      if (file.kind === 'v3') unverified.push(`${name}: a version 3 commit-reveal transcript: this page verifies version 4 only (use fairdeal verify)`);
      if (file.kind === 'refused' || file.kind === 'unreadable') {
        failures.push({ source: name, hand: null, party: SERVICE, check: 'transcript file', detail: file.reason });
      }
    }
    const pins = { roster: null, keys: [] };
    if (pinRoster) {
      const file = readFile(pinRoster.name, pinRoster.bytes);
      if (file.kind !== 'roster') return refusedUsage(`the roster ${pinRoster.name}: not a signed roster file${file.reason ? ': ' + file.reason : ''}`);
      try {
        pins.roster = readRoster(file.doc, '$');
        checkRosterSignatures(pins.roster);
      } catch (error) {
        if (!(error instanceof Refused)) throw error;
        return refusedUsage(`the roster ${pinRoster.name}: ${error.message}`);
      }
    }
    for (const line of (pinText || '').split('\n').map((l) => l.trim()).filter(Boolean)) {
      const at = line.indexOf('=');
      const who = at > 0 ? line.slice(0, at).trim() : '', key = at > 0 ? line.slice(at + 1).trim() : '';
      if (!who || !isHex(key, 32)) {
        return refusedUsage(`pin ${JSON.stringify(line)}: write SEAT=PUBKEY (a seat number, name or 'service', and 64 lowercase hex digits)`);
      }
      pins.keys.push([who, key]);
    }
    let docs = [...files.values()].filter((f) => f.kind === 'v4');
    let poker = [...files.values()].filter((f) => f.kind === 'mp');
    const pokerSettlement = [...files.values()].find((f) => f.kind === 'mp-settlement');
    let ending = null; // the end a mental-poker evening's voided hand proves
    // A refused settlement is judged on the replayed sheet: a page whose engine did not start sends it to fairdeal
    // verify, with the log or without it, rather than take the evening as settled.
    const refusedSettlement = [...files.values()].find((f) => settlementRefused(f) === 'commit-reveal');
    if (refusedSettlement && !replayer) return refusedUsage(refusedSettlementUsage(refusedSettlement));
    // Mental-poker settlements the engine judges beside their transcripts (verify.py: _check_mp_settlement): any
    // given without the log; with it, the one a seat refused (the log then has no settlement line).
    let closing = log || !replayer ? [] : [...files.values()].filter((f) => f.kind === 'mp-settlement');
    if (log) {
      const logInfo = checkLog(log, files, failures);
      if (logInfo.refused && !replayer) return refusedUsage(refusedSettlementUsage(logInfo.refused));
      if (logInfo.refused) notes.push(unsettledNote(logInfo.refused));
      if (logInfo.refused && settlementRefused(logInfo.refused) === 'mental-poker') closing = [logInfo.refused];
      const citedNames = new Set(logInfo.cited.map(([f]) => f.name));
      const settlement = docs.find((f) => f.doc.format === SETTLEMENT_FORMAT);
      const voided = settlement ? voidedHand(files, settlement, logInfo.cited.length) : null;
      // Beside the transcripts (verify.py reads them from the log's folder): the settlement, and the hand after the
      // last one the log cites, which a mental-poker end voided.
      const beside = (name) => citedFile(files, `${baseName(log.name)}.transcripts/${name}`);
      const next = beside(`hand-${String(logInfo.cited.length + 1).padStart(4, '0')}.json`);
      const mpEnded = root.FairdealMP ? root.FairdealMP.verify.endedTranscript(next, logInfo.cited.length ? logInfo.cited[logInfo.cited.length - 1][0] : null) : null;
      docs = docs.filter((f) => citedNames.has(f.name) || f === settlement || f === voided);
      poker = poker.filter((f) => citedNames.has(f.name) || f === mpEnded);
      // A commit-reveal evening closes with its signed settlement; one that ended in its first hand cites no
      // transcript to tell by, and is judged so when its settlement is commit-reveal's (verify.py: _settlement_of).
      const end = logInfo.kinds.end;
      if (logInfo.cited.some(([f]) => f.kind === 'v4')) checkLogSettlement(logInfo.kinds, settlement, failures, unverified, replayer);
      else if (!logInfo.cited.length && end && truthy(end[1].penalty) && settlement) checkLogSettlement(logInfo.kinds, settlement, failures, unverified, replayer);
      if (root.FairdealMP) {
        failures.push(...root.FairdealMP.verify.checkSettlementFile(log, beside(SETTLEMENT_FILE), logInfo.cited, end, next, unverified, replayer));
        if (mpEnded) ending = root.FairdealMP.verify.provedEnd(mpEnded.doc);
      }
    } else if (pokerSettlement && !replayer) {
      unverified.push(`${pokerSettlement.name}: a mental-poker settlement is checked against the game log or by the page's engine, which did not start: give the log too`);
    }
    const result = verifyDocuments(docs.map((f) => ({ source: f.name, doc: f.doc })), pins, replayer);
    failures.push(...result.failures);
    notes.push(...result.notes);
    const caveats = [...result.caveats];
    if (poker.length || closing.length) {
      const given = (list) => list.map((f) => ({ source: f.name, doc: f.doc }));
      const mp = root.FairdealMP.verify.verifyTranscripts(given(poker), pins, null, replayer, given(closing));
      failures.push(...mp.failures);
      notes.push(...mp.notes);
      caveats.push(...mp.caveats);
    }
    const given = docs.length + poker.length;
    const ok = failures.length === 0 && (given > 0 || log !== null);
    return { ok, failures, notes, caveats, unverified, transcripts: given, mentalPoker: poker.length, mentalPokerEnd: ok ? ending : null,
      pinned: Boolean(pins.roster) || pins.keys.length > 0, proved: ok ? proved(result, pins, log, Boolean(replayer)) : [], log: log !== null,
      replayed: Boolean(replayer) };
  }

  // The protocol of a settlement that did not settle, or null (mental_poker/verify.py: refused_settlement: a seat
  // signed a refusal; verify.py: _refused_v4_settlement: a commit-reveal one stops at a seat's refusal, or at a
  // seat's answer that is not its countersignature of that settlement).
  function settlementRefused(file) {
    if (!isObject(file.doc)) return null;
    const statements = file.kind === 'mp-settlement' ? file.doc.statements : null;
    if (Array.isArray(statements) && statements.some((s) => isObject(s) && isObject(s.body) && s.body.agrees === false)) return 'mental-poker';
    const messages = file.kind === 'v4' && file.doc.format === SETTLEMENT_FORMAT ? file.doc.messages : null;
    if (!Array.isArray(messages) || messages.length === 0 || !messages.every(isObject)) return null;
    if (messages.some((e) => e.kind === 'refusal')) return 'commit-reveal';
    const last = messages[messages.length - 1];
    if (!Number.isInteger(last.sender)) return null;
    return last.kind !== 'settlement-sign' || !countersignsTheSettlement(messages) ? 'commit-reveal' : null;
  }

  // Whether the last message names the digest of the document's settlement (read unverified: when there is
  // nothing to tell by, the document's own checks judge it).
  function countersignsTheSettlement(messages) {
    try {
      const settlement = messages.find((e) => e.kind === 'settlement');
      const named = isObject(messages[messages.length - 1].body) ? messages[messages.length - 1].body.settlement : undefined;
      return settlement === undefined || named === parseEnvelope(settlement, '$').digest;
    } catch (error) {
      if (error instanceof Refused) return true;
      throw error;
    }
  }

  // verify.py's _unsettled_note: a log beside a commit-reveal settlement that did not settle.
  function unsettledNote(file) {
    const messages = file.doc.messages;
    if (settlementRefused(file) === 'mental-poker' || messages.some((e) => e.kind === 'refusal')) return `${file.name}: a seat refused the settlement: the evening did not settle (the log has no settlement line)`;
    const last = messages[messages.length - 1];
    const answer = last.kind === 'settlement-sign' ? 'a countersignature of another settlement' : String(last.kind);
    return `${file.name}: a seat answered the settlement with ${pyRepr(answer)} instead of its countersignature: the evening did not settle (the log has no settlement line)`;
  }

  const REFUSED_IN_RUSSIAN = { 'mental-poker': 'расчёт ментального покера', 'commit-reveal': 'расчёт по протоколу commit-reveal' };

  function refusedSettlementUsage(file) {
    const protocol = settlementRefused(file);
    return `${file.name}: a seat refused this ${protocol} settlement, so the evening did not settle; the page does not judge a refused ${protocol} settlement yet: use fairdeal verify, which names the refuser or the publisher / игрок отказался подписать ${REFUSED_IN_RUSSIAN[protocol]}, и вечер не рассчитан; страница пока не проверяет такой отказ: проверьте его командой fairdeal verify, она назовёт отказавшегося или публикатора`;
  }

  // The transcript of the hand an evening's end voided (the log has no line for it): the one after the last hand the
  // log cites, beside the settlement whose signed end cites it (verify.py: _ended_hand).
  function voidedHand(files, settlement, hands) {
    const messages = settlement.doc.messages;
    if (!Array.isArray(messages) || !isObject(messages[0]) || messages[0].kind !== 'end') return null;
    const name = `hand-${String(hands + 1).padStart(4, '0')}.json`;
    const folder = settlement.name.replace(/\\/g, '/').split('/').slice(0, -1).join('/');
    return citedFile(files, folder ? `${folder}/${name}` : name);
  }

  // What an accepted run proves, and what it does not, in plain words (English; the page adds Russian).
  function proved(result, pins, log, replayed) {
    const out = [];
    for (const group of result.sessions) {
      const roster = group[0].roster;
      const hands = group.filter((c) => c.hand !== null).map((c) => c.hand);
      const settled = group.some((c) => c.hand === null);
      const ending = group.find((c) => c.hand === null && c.end !== null);
      const ended = ending ? { hand: ending.end.body.hand, step: ending.end.body.step,
        charged: ending.end.body.charged.map((seat) => roster.seats[seat].name) } : null;
      // The seats neither charged nor countersigning: left out of the settlement (absent, or dropped by the relay).
      const closing = group.find((c) => c.hand === null && c.settlement !== null);
      const signed = closing ? closing.messages.filter((e) => e.kind === 'settlement-sign').map((e) => e.sender) : [];
      const charged = ending ? ending.end.body.charged : [];
      const unsigned = closing ? roster.seats.filter((_, i) => !signed.includes(i) && !charged.includes(i)).map((x) => x.name) : [];
      out.push({ table: roster.table, session: roster.session, system: roster.system, seats: roster.seats.map((s) => s.name),
        hands, settled, ended, unsigned, pinned: Boolean(pins.roster) || pins.keys.length > 0, log, replayed });
    }
    return out;
  }

  root.FairdealVerifier = { decode, encode, context, ed25519Verify, drawsFromStream, deriveOrder, seatDeal, verifyDocuments, verifyFiles, readFile,
    CanonicalError, sha256Hex, concat, toHex, fromHex, readRoster, checkRosterSignatures, parseEnvelope, Refused, encodeText,
    signedRecord, verifySignature, abortPenalty, unverifiedPenalty, pyRepr, oneLine, houseRulesProblem, sameValue, truthy };
})(globalThis);
