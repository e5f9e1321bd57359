// Verifying the Terelius-Wikström proof of a shuffle (fairdeal/protocols/mental_poker/shuffle.py, section 5 of
// protocols/mental-poker.md): every verification equation, each times a secret random weight, into a Combination.
// Decks are arrays of [c1, c2] (hex points); a proof is {u, chain, t, t_chain, k, k_chain, k_open} (points as
// hex, responses as BigInt).
(function (root) {
  'use strict';
  const MP = (root.FairdealMP = root.FairdealMP || {});
  const G = MP.group;
  const { FiatShamir } = MP.fiatShamir;

  const generators = new Map();
  function shuffleGenerators(size) {
    if (!generators.has(size)) {
      const hs = [];
      for (let j = 1; j <= size; j++) hs.push(G.hashToPoint(`generator/h/${j}`));
      generators.set(size, { h: G.hashToPoint('generator/h'), hs });
    }
    return generators.get(size);
  }

  const flat = (deck) => deck.flatMap(([c1, c2]) => [c1, c2]);

  function start(context, player, jointKey, deckIn, deckOut, gens, commitments) {
    const fs = new FiatShamir('shuffle', context, player);
    fs.absorb('statement', G.BASE, gens.h, ...gens.hs, jointKey, ...flat(deckIn), ...flat(deckOut));
    fs.absorb('commitment', ...commitments);
    return [fs, fs.challenges('e', deckIn.length)];
  }

  function checkShapes(size, deckOut, proof) {
    const lengths = [
      ['output deck', deckOut.length], ['permutation commitment', proof.u.length], ['chain', proof.chain.length],
      ['chain commitments', proof.t_chain.length], ['chain responses', proof.k_chain.length],
      ['opening responses', proof.k_open.length],
    ];
    for (const [what, length] of lengths) {
      if (length !== size) throw new G.MentalPokerError(`${what} has ${length} entries for a deck of ${size}`);
    }
    if (proof.k.length !== 4 || proof.t.length !== 5) {
      throw new G.MentalPokerError('a shuffle proof needs five commitments T1..T4b and four responses k1..k4');
    }
  }

  const product = (values) => values.reduce((a, b) => G.mod(a * b), 1n);
  const dot = (a, b) => a.reduce((sum, x, i) => G.mod(sum + x * b[i]), 0n);

  // The claim's six kinds of equations (add_shuffle_equations); ``claim`` is {player, deckIn, deckOut, proof}.
  function addShuffleEquations(context, claim, jointKey, out, validatePoints = true) {
    const { deckIn, deckOut, proof } = claim;
    const size = deckIn.length;
    if (size === 0) throw new G.MentalPokerError('cannot shuffle an empty deck');
    checkShapes(size, deckOut, proof);
    if (validatePoints) {
      G.validate(flat(deckOut), 'output deck point');
      G.validate(proof.u, 'permutation commitment');
      G.validate(proof.chain, 'chain commitment');
      G.validate([...proof.t, ...proof.t_chain], 'proof commitment');
    }
    const gens = shuffleGenerators(size);
    const [fs, e] = start(context, claim.player, jointKey, deckIn, deckOut, gens, proof.u);
    fs.absorb('chain', ...proof.chain);
    fs.absorb('commitments', ...proof.t, ...proof.t_chain);
    const v = fs.challenge('v');
    const [k1, k2, k3, k4] = proof.k;
    const kOpen = proof.k_open, kHat = proof.k_chain;
    const [r1, r2, r3, r4a, r4b] = [0, 1, 2, 3, 4].map(() => G.randomScalar());
    const rHat = deckIn.map(() => G.randomScalar());
    const r1v = G.mod(r1 * v), r3v = G.mod(-(r3 * v)), r4av = G.mod(-(r4a * v)), r4bv = G.mod(-(r4b * v));
    out.addAll(e.map((x) => r3v * x - r1v), proof.u);
    out.addAll(kOpen.map((k) => r1v + r3 * k), gens.hs);
    out.add(-(r2 * v), proof.chain[size - 1]);
    out.add(G.mod(r2 * v) * product(e), gens.h);
    out.addAll(kOpen.map((k) => r4a * k), deckOut.map((ct) => ct[0]));
    out.addAll(kOpen.map((k) => r4b * k), deckOut.map((ct) => ct[1]));
    out.addAll(e.map((x) => r4av * x), deckIn.map((ct) => ct[0]));
    out.addAll(e.map((x) => r4bv * x), deckIn.map((ct) => ct[1]));
    out.add(-(r4b * k4), jointKey);
    const previous = [gens.h, ...proof.chain];
    out.addAll(rHat.map((r, j) => r * kOpen[j]), previous.slice(0, size));
    out.addAll(rHat.map((r) => -(r * v)), proof.chain);
    out.add(r1 * k1 + r2 * k2 + r3 * k3 - r4a * k4 + dot(rHat, kHat), G.BASE);
    out.addAll([r1, r2, r3, r4a, r4b].map((r) => -r), proof.t);
    out.addAll(rHat.map((r) => -r), proof.t_chain);
  }

  // Several shuffles at once; if the sum fails, each alone, so the error names its player (verify_shuffles).
  function verifyShuffles(context, jointKey, claims) {
    const combination = new G.Combination();
    for (const claim of claims) {
      G.blame(claim.player, 'shuffle', () => addShuffleEquations(context, claim, jointKey, combination));
    }
    if (combination.isIdentity()) return;
    for (const claim of claims) {
      G.blame(claim.player, 'shuffle', () => {
        const alone = new G.Combination();
        addShuffleEquations(context, claim, jointKey, alone);
        if (!alone.isIdentity()) {
          throw new G.MentalPokerError('the shuffle proof does not verify: the output is not a proven re-encrypted permutation');
        }
      });
    }
    throw new G.MentalPokerError('the shuffle proofs do not verify together', null, 'shuffle');
  }

  MP.shuffle = { shuffleGenerators, addShuffleEquations, verifyShuffles };
})(globalThis);
