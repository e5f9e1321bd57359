/* The bucket method (Pippenger) over signed digits, for any ristretto255 arithmetic: one schedule shared by the
 * Python extension (_msm.c, libdecaf) and the browser's WebAssembly (fairdeal/web/mental_poker/msm_wasm.c,
 * libsodium's ref10), so both verifiers add the same terms in the same order. Variable time: public inputs only.
 *
 * The including file defines, before including it:
 *   MSM_POINT            the accumulators' point type;   MSM_INPUT  the inputs' (the same type, or a form made
 *                        for fast addition);
 *   MSM_SET(r, in, neg)  r = ±in;   MSM_ADD_INPUT(r, in, neg)  r += ±in;   MSM_ADD(r, p)  r += p (both points);
 *   MSM_COPY(r, p);   MSM_DOUBLE(r)  r = 2r;   MSM_IDENTITY(r).
 */
#ifndef FAIRDEAL_MSM_BUCKETS_H
#define FAIRDEAL_MSM_BUCKETS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MSM_BYTES 32
#define MSM_MAX_WINDOW 16

/* (ℓ - 1) / 2 in little-endian bytes: a scalar above it is used as ℓ - s on -P, so short negatives stay short. */
static const uint8_t MSM_HALF_ORDER[MSM_BYTES] = {
    0xf6, 0xe9, 0x7a, 0x2e, 0x8d, 0x31, 0x09, 0x2c, 0x6b, 0xce, 0x7b, 0x51, 0xef, 0x7c, 0x6f, 0x0a,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08,
};

typedef struct {
    ptrdiff_t count;
    int window;
    int windows;
    MSM_INPUT *points;
    int32_t *digits; /* count rows of `windows` signed digits, least significant first */
    MSM_POINT *buckets;
    uint8_t *filled;
} MsmPlan;

static int msm_above_half(const uint8_t s[MSM_BYTES]) {
    for (int i = MSM_BYTES - 1; i >= 0; i--) {
        if (s[i] != MSM_HALF_ORDER[i]) return s[i] > MSM_HALF_ORDER[i];
    }
    return 0;
}

static int msm_bit_length(const uint8_t s[MSM_BYTES]) {
    for (int i = MSM_BYTES - 1; i >= 0; i--) {
        if (s[i]) {
            int bits = 8;
            while (!(s[i] & (1u << (bits - 1)))) bits--;
            return 8 * i + bits;
        }
    }
    return 0;
}

static unsigned msm_bits_at(const uint8_t s[MSM_BYTES], int start, int width) {
    unsigned value = 0;
    for (int j = 0; j < width; j++) {
        int b = start + j;
        if (b < 8 * MSM_BYTES) value |= (unsigned)((s[b >> 3] >> (b & 7)) & 1u) << j;
    }
    return value;
}

/* Signed digits in [-2^(c-1), 2^(c-1)); the extra top window takes the last carry. */
static void msm_recode(const uint8_t s[MSM_BYTES], int window, int windows, int32_t *digits) {
    int carry = 0;
    int half = 1 << (window - 1);
    for (int k = 0; k < windows; k++) {
        int d = (int)msm_bits_at(s, k * window, window) + carry;
        carry = d >= half;
        digits[k] = carry ? d - (1 << window) : d;
    }
}

/* The window that minimises additions: per window every point once, then twice the buckets for the sums. */
static int msm_best_window(ptrdiff_t count, int bits, int *windows) {
    int best = 2;
    double best_cost = -1.0;
    for (int c = 2; c <= MSM_MAX_WINDOW; c++) {
        int w = (bits + c - 1) / c + 1;
        double cost = (double)w * ((double)count + (double)(1 << c)) + (double)w * c;
        if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    *windows = (bits + best - 1) / best + 1;
    return best;
}

/* into += point (or into = point while it is still empty). */
static void msm_accumulate(MSM_POINT *into, uint8_t *filled, const MSM_POINT *point) {
    if (*filled) {
        MSM_ADD(into, point);
    } else {
        MSM_COPY(into, point);
        *filled = 1;
    }
}

static void msm_evaluate(const MsmPlan *plan, MSM_POINT *out) {
    int buckets = 1 << (plan->window - 1);
    uint8_t out_filled = 0;
    for (int k = plan->windows - 1; k >= 0; k--) {
        if (out_filled) {
            for (int j = 0; j < plan->window; j++) MSM_DOUBLE(out);
        }
        memset(plan->filled, 0, (size_t)buckets);
        for (ptrdiff_t i = 0; i < plan->count; i++) {
            int d = plan->digits[i * plan->windows + k];
            if (!d) continue;
            int b = (d < 0 ? -d : d) - 1;
            if (plan->filled[b]) {
                MSM_ADD_INPUT(&plan->buckets[b], &plan->points[i], d < 0);
            } else {
                MSM_SET(&plan->buckets[b], &plan->points[i], d < 0);
                plan->filled[b] = 1;
            }
        }
        /* Σ b·bucket[b] as a running sum of running sums, from the top bucket down. */
        MSM_POINT running, total;
        uint8_t running_filled = 0, total_filled = 0;
        for (int b = buckets - 1; b >= 0; b--) {
            if (plan->filled[b]) msm_accumulate(&running, &running_filled, &plan->buckets[b]);
            if (running_filled) msm_accumulate(&total, &total_filled, &running);
        }
        if (total_filled) msm_accumulate(out, &out_filled, &total);
    }
    if (!out_filled) MSM_IDENTITY(out);
}

#endif
