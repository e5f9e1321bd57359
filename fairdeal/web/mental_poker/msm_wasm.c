/* Multi-scalar multiplication in ristretto255 for the browser's verifier, compiled to WebAssembly against wasi-libc
 * (the Makefile's msm.wasm rule; it imports nothing): Σ s_i·P_i over public inputs, the same bucket schedule as the Python extension
 * (fairdeal/protocols/msm_buckets.h) over libsodium's own ref10 field and point arithmetic, whose source
 * (ed25519_ref10.c, from the libsodium bundled in PyNaCl's sdist) is included whole. Variable time: provers keep
 * libsodium's constant-time multiplications.
 *
 * The JavaScript side (group.js) asks msm_input(count) for room for count 32-byte scalars then count 32-byte
 * encodings, writes them, and calls msm(count): 0 with the sum's encoding at msm_output(), i + 1 when point i is
 * not a valid non-identity encoding, -(i + 1) when scalar i is not reduced, -2^30 when memory cannot grow. It
 * validates received points with point_valid, which keeps their decoding for the sums.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "crypto_core/ed25519/ref10/ed25519_ref10.c"

/* What ed25519_ref10.c calls in the rest of libsodium. */
void sodium_memzero(void *const pnt, const size_t len) { memset(pnt, 0, len); }

int sodium_is_zero(const unsigned char *n, const size_t nlen) {
    unsigned int d = 0;
    for (size_t i = 0; i < nlen; i++) d |= n[i];
    return (int)(1 & ((d - 1) >> 8));
}

int crypto_verify_32(const unsigned char *x, const unsigned char *y) {
    unsigned int d = 0;
    for (int i = 0; i < 32; i++) d |= x[i] ^ y[i];
    return (int)((1 & ((d - 1) >> 8)) - 1);
}



typedef struct {
    ge25519_p3 point;
    ge25519_cached cached; /* the same point, ready to be added */
} Input;

static void negate_p3(ge25519_p3 *r, const ge25519_p3 *p) {
    fe25519_neg(r->X, p->X);
    fe25519_copy(r->Y, p->Y);
    fe25519_copy(r->Z, p->Z);
    fe25519_neg(r->T, p->T);
}

static void set_input(ge25519_p3 *r, const Input *in, int negative) {
    if (negative) negate_p3(r, &in->point);
    else *r = in->point;
}

static void add_input(ge25519_p3 *r, const Input *in, int negative) {
    ge25519_p1p1 sum;
    if (negative) ge25519_sub(&sum, r, &in->cached);
    else ge25519_add(&sum, r, &in->cached);
    ge25519_p1p1_to_p3(r, &sum);
}

static void add_point(ge25519_p3 *r, const ge25519_p3 *p) {
    ge25519_cached cached;
    ge25519_p1p1 sum;
    ge25519_p3_to_cached(&cached, p);
    ge25519_add(&sum, r, &cached);
    ge25519_p1p1_to_p3(r, &sum);
}

static void double_point(ge25519_p3 *r) {
    ge25519_p1p1 twice;
    ge25519_p3_dbl(&twice, r);
    ge25519_p1p1_to_p3(r, &twice);
}

#define MSM_POINT ge25519_p3
#define MSM_INPUT Input
#define MSM_SET(r, in, neg) set_input((r), (in), (neg))
#define MSM_ADD_INPUT(r, in, neg) add_input((r), (in), (neg))
#define MSM_ADD(r, p) add_point((r), (p))
#define MSM_COPY(r, p) (*(r) = *(p))
#define MSM_DOUBLE(r) double_point(r)
#define MSM_IDENTITY(r) ge25519_p3_0(r)
#include "msm_buckets.h"

/* ℓ, the group order, little-endian. */
static const uint8_t ORDER[MSM_BYTES] = {
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
};

static int reduced(const uint8_t s[MSM_BYTES]) {
    for (int i = MSM_BYTES - 1; i >= 0; i--) {
        if (s[i] != ORDER[i]) return s[i] < ORDER[i];
    }
    return 0;
}

/* r = ℓ - s, for 0 < s < ℓ. */
static void order_minus(uint8_t r[MSM_BYTES], const uint8_t s[MSM_BYTES]) {
    int borrow = 0;
    for (int i = 0; i < MSM_BYTES; i++) {
        int d = ORDER[i] - s[i] - borrow;
        borrow = d < 0;
        r[i] = (uint8_t)(d + (borrow << 8));
    }
}

/* One arena, reset by every msm_input: the inputs, then the plan. Memory grows in 64 KiB pages and is kept. */
extern unsigned char __heap_base;
static size_t arena_top;

static void *reserve(size_t bytes) {
    size_t start = (arena_top + 15) & ~(size_t)15, end = start + bytes;
    size_t have = __builtin_wasm_memory_size(0) << 16;
    if (end > have && __builtin_wasm_memory_grow(0, (end - have + 65535) >> 16) == (size_t)-1) return NULL;
    arena_top = end;
    return (void *)start;
}

static uint8_t *inputs;
static uint8_t output[MSM_BYTES];
static uint8_t checked[MSM_BYTES];

__attribute__((export_name("msm_input"))) uint8_t *msm_input(int count) {
    arena_top = (size_t)&__heap_base;
    inputs = reserve((size_t)count * 2 * MSM_BYTES);
    return inputs;
}

__attribute__((export_name("msm_output"))) uint8_t *msm_output(void) { return output; }

/* Decoded points by encoding, direct-mapped on its first bytes (uniform for honest and forged points alike; a
 * collision only costs a decoding): a verifier validates each received point once and then sums it, so every
 * point is decoded once (the decoding, a square root, costs a third of a sum's time). */
#define CACHED 8192
static struct {
    uint8_t key[MSM_BYTES];
    uint8_t valid;
    Input input;
} cache[CACHED];

/* The decoding of a valid non-identity encoding, or NULL. */
static const Input *decoded(const uint8_t *p) {
    unsigned slot = ((unsigned)p[0] | (unsigned)p[1] << 8) % CACHED;
    if (cache[slot].valid && memcmp(cache[slot].key, p, MSM_BYTES) == 0) return &cache[slot].input;
    Input input;
    if (sodium_is_zero(p, MSM_BYTES) || (p[31] & 0x80) || ristretto255_frombytes(&input.point, p) != 0) return NULL;
    ge25519_p3_to_cached(&input.cached, &input.point);
    memcpy(cache[slot].key, p, MSM_BYTES);
    cache[slot].input = input;
    cache[slot].valid = 1;
    return &cache[slot].input;
}

/* Whether the 32 bytes written at point_input() are a valid non-identity encoding (RFC 9496's strict decoding). */
__attribute__((export_name("point_input"))) uint8_t *point_input(void) { return checked; }
__attribute__((export_name("point_valid"))) int point_valid(void) { return decoded(checked) != NULL; }

__attribute__((export_name("msm"))) int msm(int count) {
    const uint8_t *scalars = inputs, *points = inputs + (size_t)count * MSM_BYTES;
    MsmPlan plan = {.count = count};
    uint8_t(*folded)[MSM_BYTES] = reserve((size_t)count * MSM_BYTES);
    plan.points = reserve((size_t)count * sizeof(Input));
    if (!folded || !plan.points) return -(1 << 30);
    int bits = 0;
    for (int i = 0; i < count; i++) {
        const uint8_t *s = scalars + MSM_BYTES * i, *p = points + MSM_BYTES * i;
        if (!reduced(s)) return -(i + 1);
        const Input *input = decoded(p);
        if (input == NULL) return i + 1;
        plan.points[i] = *input;
        if (msm_above_half(s)) {
            order_minus(folded[i], s);
            negate_p3(&plan.points[i].point, &plan.points[i].point);
            ge25519_p3_to_cached(&plan.points[i].cached, &plan.points[i].point);
        } else {
            memcpy(folded[i], s, MSM_BYTES);
        }
        int b = msm_bit_length(folded[i]);
        if (b > bits) bits = b;
    }
    plan.window = msm_best_window(count, bits, &plan.windows);
    plan.digits = reserve((size_t)count * (size_t)plan.windows * sizeof(int32_t));
    plan.buckets = reserve(((size_t)1 << (plan.window - 1)) * sizeof(ge25519_p3));
    plan.filled = reserve((size_t)1 << (plan.window - 1));
    if (!plan.digits || !plan.buckets || !plan.filled) return -(1 << 30);
    for (int i = 0; i < count; i++) msm_recode(folded[i], plan.window, plan.windows, plan.digits + i * plan.windows);
    ge25519_p3 sum;
    msm_evaluate(&plan, &sum);
    ristretto255_p3_tobytes(output, &sum);
    return 0;
}
