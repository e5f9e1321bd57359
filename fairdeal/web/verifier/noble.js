// The @noble primitives the offline verifier page needs, bundled by esbuild into one classic script (the page
// runs from file://, where browsers refuse to import ES modules from other files).
import { ed25519, RistrettoPoint } from '@noble/curves/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2';
import { shake256 } from '@noble/hashes/sha3';

globalThis.fairdealNoble = { ed25519, RistrettoPoint, sha256, sha512, shake256 };
