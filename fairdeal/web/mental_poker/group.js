// The prime-order group ristretto255 for the mental-poker verifier (fairdeal/protocols/mental_poker/group.py):
// scalars modulo the group order as BigInt, points as their 32-byte encodings in libsodium's arithmetic (the
// Python's library, so every encoding is its by construction), strict decoding of received bytes, hashing to the
// group exactly as the Python does, and Combination (weighted verification equations summed at once). A classic
// script: it needs globalThis.fairdealNoble (SHA-512) and, once globalThis.fairdealReady has resolved,
// globalThis.fairdealSodium and globalThis.fairdealMsm (the multi-scalar multiplication).
(function (root) {
  'use strict';
  const MP = (root.FairdealMP = root.FairdealMP || {});
  const noble = () => root.fairdealNoble;
  // The byte helpers are the commit-reveal verifier's (loaded first on the page and in every Node loader).
  const { concat, toHex, fromHex } = root.FairdealVerifier;
  const utf8 = new TextEncoder();

  const ORDER = 2n ** 252n + 27742317777372353535851937790883648493n;
  const DOMAIN = utf8.encode('fairdeal/mental-poker/v2/');

  // A failure of a message: ``player`` and ``step`` name who broke which step (MentalPokerError).
  class MentalPokerError extends Error {
    constructor(message, player = null, step = null) {
      super(message);
      this.detail = message;
      this.player = player;
      this.step = step;
    }
  }

  // Attribute a failure that names nobody to ``player`` at ``step`` (group.blame).
  function blame(player, step, work) {
    try {
      return work();
    } catch (error) {
      if (error instanceof MentalPokerError && error.player === null) {
        throw new MentalPokerError(error.detail, player, step);
      }
      throw error;
    }
  }

  const mod = (x) => ((x % ORDER) + ORDER) % ORDER;

  function littleEndian(bytes) {
    let value = 0n;
    for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]);
    return value;
  }

  function scalarBytes(value) {
    const out = new Uint8Array(32);
    let x = mod(value);
    for (let i = 0; i < 32; i++) { out[i] = Number(x & 0xffn); x >>= 8n; }
    return out;
  }

  // A received scalar: 32 bytes encoding an integer below the order (Scalar.decode).
  function decodeScalar(bytes) {
    const value = littleEndian(bytes);
    if (value >= ORDER) throw new MentalPokerError('a scalar is not reduced modulo the group order');
    return value;
  }

  const fromDigest = (digest64) => mod(littleEndian(digest64));

  // Cryptographic randomness for the verifier's secret weights (128 bits suffice for a batch's soundness, but the
  // weights are full scalars like the Python's).
  function randomScalar() {
    const bytes = new Uint8Array(64);
    root.crypto.getRandomValues(bytes);
    return fromDigest(bytes);
  }

  function isZeroBytes(bytes) {
    for (const b of bytes) if (b) return false;
    return true;
  }

  // libsodium's ristretto255 (the WebAssembly build the page bundles, PyNaCl's library on the Python side), called
  // on one scratch buffer of its heap, without the wrappers' allocation and checks on every call (a batch makes
  // about 1,500 calls). Points are their 32-byte encodings throughout, so nothing is converted between calls.
  let lib = null;
  let scratch = 0;
  const IN = 0, OTHER = 64, OUT = 128;
  function sodium() {
    if (lib === null) {
      if (!root.fairdealSodium) {
        const failure = root.fairdealSodiumFailure;
        throw new Error(failure ? `libsodium (WebAssembly) did not load: ${failure}` : 'libsodium is not initialised yet: await globalThis.fairdealReady first');
      }
      lib = root.fairdealSodium.libsodium;
      scratch = lib._malloc(192);
    }
    return lib;
  }
  // ``name``(out, first, second) on the heap; its result, or null when libsodium refuses (status not 0).
  function call(name, first, second = null, size = 32) {
    const L = sodium();
    L.HEAPU8.set(first, scratch + IN);
    if (second !== null) L.HEAPU8.set(second, scratch + OTHER);
    if (L[name](scratch + OUT, scratch + IN, scratch + OTHER) !== 0) return null;
    return L.HEAPU8.slice(scratch + OUT, scratch + OUT + size); // HEAPU8 is re-read: the heap may have grown
  }
  // Whether ``bytes`` encode a non-identity point: RFC 9496's strict decoding (libsodium's ref10, in the
  // multiplication's module, which keeps the decoded point for the sums it will be in) refuses every non-canonical
  // form, and msm_wasm.c the identity and the top bit too, as the Python does (libsodium 1.0.18 ignored the top
  // bit, which made 00..80 a second identity).
  function isValidEncoding(bytes) {
    sodium();
    const M = root.fairdealMsm;
    new Uint8Array(M.memory.buffer).set(bytes, M.point_input());
    return M.point_valid() === 1;
  }

  const IDENTITY = '0'.repeat(64);
  const ZERO = new Uint8Array(32);
  const isIdentityPoint = (point) => isZeroBytes(point);
  const encodePoint = (point) => toHex(point);
  const add = (p, q) => call('_crypto_core_ristretto255_add', p, q);
  // s·P and s·B by libsodium's constant-time multiplication (secret scalars are never zero: ℓ > 2^252, and a
  // multiple that would be the identity is libsodium's refusal, an error here rather than a wrong point).
  function multiply(scalar, point) {
    const out = call('_crypto_scalarmult_ristretto255', scalarBytes(scalar), point);
    if (out === null) throw new MentalPokerError('a scalar multiple is the identity');
    return out;
  }
  function baseMultiply(scalar) {
    const out = call('_crypto_scalarmult_ristretto255_base', scalarBytes(scalar));
    if (out === null) throw new MentalPokerError('a scalar multiple is the identity');
    return out;
  }

  // A point known only by its hex until it is decoded and checked.
  const decoded = new Map();
  const MAX_REMEMBERED = 1 << 15;

  // The encoding of a valid non-identity point, or null.
  function decodePoint(hex) {
    let point = decoded.get(hex);
    if (point === undefined) {
      point = null;
      if (typeof hex === 'string' && hex.length === 64 && /^[0-9a-fA-F]*$/.test(hex)) {
        const bytes = fromHex(hex);
        if (isValidEncoding(bytes)) point = bytes;
      }
      if (decoded.size >= MAX_REMEMBERED) decoded.clear();
      decoded.set(hex, point);
    }
    return point;
  }

  // Strictly validate received points, each a hex string (group.validate).
  function validate(points, what) {
    points.forEach((hex, index) => {
      if (decodePoint(hex) === null) throw new MentalPokerError(`${what} [${index}] is not a valid non-identity group element`);
    });
  }

  // Σ scalars[i]·points[i] for public scalars, gathered by point: the bucket method in WebAssembly (msm_wasm.c,
  // the Python extension's schedule over libsodium's own arithmetic), in its memory. Every point must be a valid
  // non-identity element (multi_mult_vartime: its failure names the merged term, as _msm.c does).
  function sumOf(terms) {
    sodium(); // loaded with the multiplication, or the reason why not
    const M = root.fairdealMsm;
    const count = terms.size;
    const at = M.msm_input(count);
    const heap = new Uint8Array(M.memory.buffer); // after msm_input, which may grow the memory
    let index = 0;
    for (const [hex, scalar] of terms) {
      const point = decodePoint(hex);
      if (point === null) throw invalidTerm(index);
      heap.set(scalarBytes(scalar), at + 32 * index);
      heap.set(point, at + 32 * (count + index));
      index += 1;
    }
    const status = M.msm(count);
    if (status > 0) throw invalidTerm(status - 1);
    if (status < 0) throw new Error(`the multi-scalar multiplication of ${count} terms failed (status ${status})`);
    return new Uint8Array(M.memory.buffer, M.msm_output(), 32).slice();
  }

  const invalidTerm = (index) => new MentalPokerError(
    `a sum of multiples cannot be formed: point ${index} is not a valid non-identity ristretto255 encoding`);

  function merged(scalars, points) {
    if (scalars.length !== points.length) throw new MentalPokerError(`${scalars.length} scalars for ${points.length} points`);
    const out = new Map();
    scalars.forEach((s, i) => out.set(points[i], out.has(points[i]) ? mod(out.get(points[i]) + s) : s));
    return out;
  }

  const sum = (scalars, points) => sumOf(merged(scalars, points));
  const multiMult = (scalars, points) => encodePoint(sum(scalars, points));
  const pointSum = (points) => (points.length ? multiMult(points.map(() => 1n), points) : IDENTITY);

  // The verification equations of many proofs, each times a secret random weight, by point.
  class Combination {
    constructor() { this.terms = new Map(); }
    add(coefficient, point) {
      this.terms.set(point, this.terms.has(point) ? mod(this.terms.get(point) + coefficient) : mod(coefficient));
    }
    addAll(coefficients, points) { coefficients.forEach((c, i) => this.add(c, points[i])); }
    isIdentity() { return this.terms.size === 0 || isIdentityPoint(sumOf(this.terms)); }
  }

  const BASE = '' + 'e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76';

  // A group element nobody knows the logarithm of: SHA-512 of the domain tag and label, then ristretto255's
  // hash-to-group (group.hash_to_point, libsodium's crypto_core_ristretto255_from_hash).
  const hashed = new Map();
  function hashToPoint(label) {
    if (!hashed.has(label)) {
      const digest = noble().sha512(concat([DOMAIN, utf8.encode(label)]));
      hashed.set(label, encodePoint(call('_crypto_core_ristretto255_from_hash', digest)));
    }
    return hashed.get(label);
  }

  MP.group = {
    ORDER, DOMAIN, BASE, IDENTITY, MentalPokerError, blame, mod, littleEndian, scalarBytes, decodeScalar, fromDigest,
    randomScalar, decodePoint, validate, sum, multiMult, pointSum, Combination, hashToPoint, concat, toHex, fromHex,
    isZeroBytes, encodePoint, add, multiply, baseMultiply, isIdentityPoint, ZERO,
  };
})(globalThis);
