// Domain-separated Fiat-Shamir hashing (fairdeal/protocols/mental_poker/fiat_shamir.py): SHA-512 of framed
// inputs (4-byte big-endian length before each field), challenges reduced modulo the group order.
(function (root) {
  'use strict';
  const MP = (root.FairdealMP = root.FairdealMP || {});
  const G = MP.group;
  const utf8 = new TextEncoder();

  function u32(n) { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, n, false); return b; }
  const framed = (data) => G.concat([u32(data.length), data]);

  function u64(n) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(n), false);
    return b;
  }

  // What every proof is bound to (HandContext): the table id and the hand.
  function handContext(tableId, hand) {
    return { tableId, hand, encoded: G.concat([framed(utf8.encode(tableId)), framed(u64(hand))]) };
  }

  // An item as the Python absorbs it: a point (hex string), a scalar (BigInt, 32 little-endian bytes) or bytes.
  function itemBytes(item) {
    if (typeof item === 'string') return G.fromHex(item);
    if (typeof item === 'bigint') return G.scalarBytes(item);
    return item;
  }

  class FiatShamir {
    constructor(protocol, context, player) {
      this.hash = root.fairdealNoble.sha512.create();
      this.hash.update(framed(G.concat([G.DOMAIN, utf8.encode('fs/' + protocol)])));
      this.hash.update(G.concat([context.encoded, framed(utf8.encode(player))]));
    }
    absorb(label, ...items) {
      const parts = [framed(utf8.encode(label)), u32(items.length)];
      for (const item of items) parts.push(framed(itemBytes(item)));
      this.hash.update(G.concat(parts));
    }
    challenge(label) {
      const value = this.derive(label);
      this.absorb(label + '/value', value);
      return value;
    }
    challenges(label, count) {
      const values = [];
      for (let i = 0; i < count; i++) values.push(this.derive(`${label}/${i}`));
      this.absorb(label + '/values', ...values);
      return values;
    }
    derive(label) {
      const fork = this.hash.clone();
      fork.update(framed(utf8.encode('challenge/' + label)));
      return G.fromDigest(fork.digest());
    }
  }

  MP.fiatShamir = { FiatShamir, handContext, framed, u32 };
})(globalThis);
