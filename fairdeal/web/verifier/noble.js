// The primitives the offline verifier page needs, bundled by esbuild into one classic script (the page runs from
// file://, where browsers refuse to import ES modules from other files): @noble for Ed25519 and the hashes, and
// libsodium's WebAssembly build (its wasm inline as base64) for the mental poker's ristretto255 arithmetic, the
// same library the Python side calls through PyNaCl, and the verifier's multi-scalar multiplication over
// libsodium's ref10 code (mental_poker/msm_wasm.c, built by the Makefile; esbuild inlines its bytes). Both compile
// asynchronously: every caller of the group awaits globalThis.fairdealReady once, after the scripts are loaded. It
// never rejects: a browser that refuses WebAssembly still verifies commit-reveal, and the group names the reason
// at its first use.
import { ed25519 } from '@noble/curves/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2';
import { shake256 } from '@noble/hashes/sha3';
import sodium from 'libsodium-wrappers-sumo';
import msmWasm from '../../../build/wasm/msm.wasm';

globalThis.fairdealNoble = { ed25519, sha256, sha512, shake256 };
globalThis.fairdealReady = Promise.all([sodium.ready, WebAssembly.instantiate(msmWasm)]).then(
  ([, msm]) => {
    globalThis.fairdealSodium = sodium;
    globalThis.fairdealMsm = msm.instance.exports;
  },
  (error) => { globalThis.fairdealSodiumFailure = String((error && error.message) || error); },
);
