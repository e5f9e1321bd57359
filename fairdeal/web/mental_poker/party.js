// A mental-poker player's own steps in JavaScript (elgamal.py, proofs.py, shuffle.py): a key share with its proof
// of possession, a shuffle with its Terelius-Wikström proof, decryption shares with their Chaum-Pedersen proof,
// each in the wire form of messages.py, so that the Python verifier checks them. Every multiplication is
// libsodium's constant-time one (group.js), for secret and public scalars alike.
(function (root) {
  'use strict';
  const MP = (root.FairdealMP = root.FairdealMP || {});
  const G = MP.group;
  const { FiatShamir } = MP.fiatShamir;

  const point = (hex) => G.decodePoint(hex);
  const encode = (p) => G.encodePoint(p);
  const baseMult = (secret) => G.baseMultiply(secret); // secret scalars are never zero (ℓ > 2^252)
  const times = (p, s) => G.multiply(s, p);
  const scalarHex = (s) => G.toHex(G.scalarBytes(s));

  // A secret nonzero scalar.
  function secretScalar() {
    for (;;) {
      const s = G.randomScalar();
      if (s !== 0n) return s;
    }
  }

  // A uniform permutation: Fisher-Yates over rejection-sampled 32-bit draws.
  function randomPermutation(size) {
    const order = [...Array(size).keys()];
    const word = new Uint32Array(1);
    for (let i = size - 1; i > 0; i--) {
      const bound = i + 1, limit = 2 ** 32 - (2 ** 32 % bound);
      let draw;
      do { root.crypto.getRandomValues(word); draw = word[0]; } while (draw >= limit);
      const j = draw % bound;
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order;
  }

  // A fresh key share for one hand and its `keys` message fields (make_key_share, prove_possession).
  function keyShare(context, player) {
    const secret = secretScalar();
    const publicKey = encode(baseMult(secret));
    const nonce = secretScalar();
    const challenge = MP.proofs.possessionHash(context, player, publicKey, encode(baseMult(nonce)));
    return { secret, publicKey, message: { public: publicKey, c: scalarHex(challenge), s: scalarHex(G.mod(nonce + challenge * secret)) } };
  }

  // Shares x·c1 of the ciphertexts at ``positions`` and one proof covering them (make_decryption_shares): the
  // `shares` and `proof` fields of a deal, talon, take, turn, dummy or reveal message.
  function decryptionShares(context, player, secret, publicKey, deck, positions) {
    if (!positions.length) return { shares: [], proof: null };
    const bases = positions.map((p) => deck[p][0]);
    const images = bases.map((b) => encode(times(point(b), secret)));
    const label = new Uint8Array(2 * positions.length);
    positions.forEach((p, i) => { label[2 * i] = (p >> 8) & 0xff; label[2 * i + 1] = p & 0xff; });
    const fs = new FiatShamir('equal-logs-batch', context, player);
    fs.absorb('label', label);
    fs.absorb('statement', G.BASE, publicKey, ...bases, ...images);
    const z = fs.challenges('z', bases.length);
    const nonce = secretScalar();
    const a = encode(baseMult(nonce));
    const b = encode(times(G.sum(z, bases), nonce));
    fs.absorb('commitment', a, b);
    const s = G.mod(nonce + fs.challenge('c') * secret);
    return { shares: positions.map((p, i) => ({ position: p, share: images[i] })), proof: { a, b, s: scalarHex(s) } };
  }

  // Σ secrets[j]·points[j], each product constant-time.
  function secretSum(secrets, points) {
    let total = G.ZERO;
    secrets.forEach((s, j) => { total = G.add(total, times(point(points[j]), s)); });
    return total;
  }

  const sum = (values) => values.reduce((a, b) => G.mod(a + b), 0n);
  const dot = (a, b) => a.reduce((total, x, i) => G.mod(total + x * b[i]), 0n);

  // Output card i is input card pi[i] re-randomised, with the proof of section 5 (shuffle_deck, prove_shuffle):
  // the `deck` and `proof` fields of a shuffle message. ``chosen`` replaces the random permutation only for
  // reproducible evenings (as Python's ``permutation``); re-encryption and the proof stay random.
  function shuffle(context, player, jointKey, deckIn, chosen = null) {
    const size = deckIn.length;
    const pi = chosen === null ? randomPermutation(size) : [...chosen];
    if (pi.length !== size || new Set(pi).size !== size || !pi.every((i) => Number.isInteger(i) && i >= 0 && i < size)) {
      throw new G.MentalPokerError(`a shuffle's permutation must order the ${size} positions 0..${size - 1}`, player, 'shuffle');
    }
    const Y = point(jointKey);
    const rerand = deckIn.map(() => secretScalar());
    const deckOut = pi.map((source, i) => [
      encode(G.add(point(deckIn[source][0]), baseMult(rerand[i]))), encode(G.add(point(deckIn[source][1]), times(Y, rerand[i]))),
    ]);
    const gens = MP.shuffle.shuffleGenerators(size);
    const inverse = new Array(size);
    pi.forEach((source, i) => { inverse[source] = i; });
    const r = deckIn.map(() => secretScalar());
    const u = r.map((ri, i) => encode(G.add(baseMult(ri), point(gens.hs[inverse[i]]))));
    const fs = new FiatShamir('shuffle', context, player);
    const flat = (deck) => deck.flatMap(([c1, c2]) => [c1, c2]);
    fs.absorb('statement', G.BASE, gens.h, ...gens.hs, jointKey, ...flat(deckIn), ...flat(deckOut));
    fs.absorb('commitment', ...u);
    const e = fs.challenges('e', size);
    const ePerm = pi.map((source) => e[source]);
    const rHat = deckIn.map(() => secretScalar());
    const chain = [];
    let previous = point(gens.h), rHatTotal = 0n;
    rHat.forEach((rj, j) => {
      previous = G.add(baseMult(rj), times(previous, ePerm[j]));
      chain.push(encode(previous));
      rHatTotal = G.mod(rj + ePerm[j] * rHatTotal);
    });
    const [w1, w2, w3, w4] = [0, 1, 2, 3].map(() => secretScalar());
    const wHat = deckIn.map(() => secretScalar());
    const wOpen = deckIn.map(() => secretScalar());
    const shift = G.mod(dot(wOpen, rerand) - w4);
    const source = pi.map((s) => deckIn[s]);
    const t4a = G.add(secretSum(wOpen, source.map((ct) => ct[0])), shift === 0n ? G.ZERO : baseMult(shift));
    const t4b = G.add(secretSum(wOpen, source.map((ct) => ct[1])), shift === 0n ? G.ZERO : times(Y, shift));
    const links = [gens.h, ...chain];
    const tHat = wHat.map((w, j) => encode(G.add(baseMult(w), times(point(links[j]), wOpen[j]))));
    const t = [encode(baseMult(w1)), encode(baseMult(w2)), encode(G.add(baseMult(w3), secretSum(wOpen, gens.hs))), encode(t4a), encode(t4b)];
    fs.absorb('chain', ...chain);
    fs.absorb('commitments', ...t, ...tHat);
    const v = fs.challenge('v');
    const k = [G.mod(w1 + v * sum(r)), G.mod(w2 + v * rHatTotal), G.mod(w3 + v * dot(e, r)), G.mod(w4 + v * dot(ePerm, rerand))];
    return {
      deck: deckOut,
      proof: {
        u, chain, t, t_chain: tHat, k: k.map(scalarHex),
        k_chain: wHat.map((w, j) => scalarHex(G.mod(w + v * rHat[j]))),
        k_open: wOpen.map((w, j) => scalarHex(G.mod(w + v * ePerm[j]))),
      },
    };
  }

  // Ed25519 signing is deterministic (RFC 8032): libsodium's signature is @noble's, byte for byte, in under a tenth of
  // the time. The expanded key is kept per seed (one seat signs every message of its session).
  const signingKeys = new Map();
  function signingKey(seed) {
    const id = G.toHex(seed);
    if (!signingKeys.has(id)) signingKeys.set(id, root.fairdealSodium.crypto_sign_seed_keypair(seed).privateKey);
    return signingKeys.get(id);
  }

  // The signed envelope of a message (signed.seal): ``seed`` is the sender's 32-byte Ed25519 identity seed,
  // ``where`` {table, session, roster} with the roster's hash; returns the envelope and its digest (the next prev).
  function seal(seed, where, hand, sender, kind, body, prev) {
    const V = root.FairdealVerifier;
    const content = V.encode({ sender, kind, hand, body, prev });
    const prefix = V.context('fairdeal-signed/4', where.table, where.session, hand, where.roster);
    const signed = G.concat([prefix, content]);
    const signature = root.fairdealSodium.crypto_sign_detached(signed, signingKey(seed));
    return { envelope: { sender, kind, hand, body, prev, signature: G.toHex(signature) },
      digest: V.sha256Hex(G.concat([content, signature])) };
  }

  MP.party = { keyShare, decryptionShares, shuffle, randomPermutation, seal };
})(globalThis);
