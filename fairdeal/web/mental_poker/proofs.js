// Sigma proofs (fairdeal/protocols/mental_poker/proofs.py): the Schnorr proof of possession of a key share, and
// the Chaum-Pedersen equality of logarithms in commitment form, whose equations join a batch (Combination).
(function (root) {
  'use strict';
  const MP = (root.FairdealMP = root.FairdealMP || {});
  const G = MP.group;
  const { FiatShamir } = MP.fiatShamir;

  function possessionHash(context, player, publicKey, commitment) {
    const fs = new FiatShamir('key-possession', context, player);
    fs.absorb('statement', G.BASE, publicKey);
    fs.absorb('commitment', commitment);
    return fs.challenge('c');
  }

  // s·G − c·Y re-hashed must give c (verify_possession); ``proof`` is {challenge, response} as BigInt.
  function verifyPossession(context, player, publicKey, proof) {
    const commitment = G.multiMult([proof.response, G.mod(-proof.challenge)], [G.BASE, publicKey]);
    if (possessionHash(context, player, publicKey, commitment) !== proof.challenge) {
      throw new G.MentalPokerError('the proof of possession of the key share does not verify');
    }
  }

  function equalLogsStart(context, player, label, publicKey, bases, images) {
    const fs = new FiatShamir('equal-logs-batch', context, player);
    fs.absorb('label', label);
    fs.absorb('statement', G.BASE, publicKey, ...bases, ...images);
    return [fs, fs.challenges('z', bases.length)];
  }

  // s·G − c·Y − A = 0 and Σ s·z_j·bases[j] − Σ c·z_j·images[j] − B = 0, each times a random weight
  // (add_equal_logs_equations); ``proof`` is {a, b, s}.
  function addEqualLogsEquations(context, player, label, publicKey, bases, images, proof, out) {
    if (bases.length !== images.length || !bases.length) {
      throw new G.MentalPokerError(`${images.length} images for ${bases.length} bases`);
    }
    const [fs, z] = equalLogsStart(context, player, label, publicKey, bases, images);
    fs.absorb('commitment', proof.a, proof.b);
    const c = fs.challenge('c');
    const first = G.randomScalar(), second = G.randomScalar();
    out.add(first * proof.s, G.BASE);
    out.add(-(first * c), publicKey);
    out.add(-first, proof.a);
    const scaledS = G.mod(second * proof.s), scaledC = G.mod(second * c);
    out.addAll(z.map((w) => scaledS * w), bases);
    out.addAll(z.map((w) => -(scaledC * w)), images);
    out.add(-second, proof.b);
  }

  MP.proofs = { verifyPossession, addEqualLogsEquations, possessionHash };
})(globalThis);
