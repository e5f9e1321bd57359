/* Multi-scalar multiplication in ristretto255 for verifiers: sum of s_i * P_i over public inputs.
 *
 * All field and point arithmetic is libdecaf's (Mike Hamburg's reference implementation of decaf/ristretto,
 * whose decaf_255 group is ristretto255 of RFC 9496, byte for byte the encoding libsodium uses). This file only
 * schedules the group operations: the bucket method (Pippenger) over signed digits. It runs in variable time,
 * so it is for public scalars only; provers keep libsodium's constant-time single multiplications.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <decaf/point_255.h>
#include <stdlib.h>
#include <string.h>

#define BYTES 32
#define MAX_WINDOW 16

/* (ℓ - 1) / 2 in little-endian bytes: a scalar above it is used as ℓ - s on -P, so short negatives stay short. */
static const uint8_t HALF_ORDER[BYTES] = {
    0xf6, 0xe9, 0x7a, 0x2e, 0x8d, 0x31, 0x09, 0x2c, 0x6b, 0xce, 0x7b, 0x51, 0xef, 0x7c, 0x6f, 0x0a,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08,
};

typedef struct {
    Py_ssize_t count;
    int window;
    int windows;
    struct decaf_255_point_s *points;
    int32_t *digits;          /* count rows of `windows` signed digits, least significant first */
    struct decaf_255_point_s *buckets;
    uint8_t *filled;
} Plan;

static int above_half(const uint8_t s[BYTES]) {
    for (int i = BYTES - 1; i >= 0; i--) {
        if (s[i] != HALF_ORDER[i]) return s[i] > HALF_ORDER[i];
    }
    return 0;
}

static int bit_length(const uint8_t s[BYTES]) {
    for (int i = BYTES - 1; i >= 0; i--) {
        if (s[i]) {
            int bits = 8;
            while (!(s[i] & (1u << (bits - 1)))) bits--;
            return 8 * i + bits;
        }
    }
    return 0;
}

static unsigned bits_at(const uint8_t s[BYTES], int start, int width) {
    unsigned value = 0;
    for (int j = 0; j < width; j++) {
        int b = start + j;
        if (b < 8 * BYTES) value |= (unsigned)((s[b >> 3] >> (b & 7)) & 1u) << j;
    }
    return value;
}

/* Signed digits in [-2^(c-1), 2^(c-1)); the extra top window takes the last carry. */
static void recode(const uint8_t s[BYTES], int window, int windows, int32_t *digits) {
    int carry = 0;
    int half = 1 << (window - 1);
    for (int k = 0; k < windows; k++) {
        int d = (int)bits_at(s, k * window, window) + carry;
        carry = d >= half;
        digits[k] = carry ? d - (1 << window) : d;
    }
}

/* The window that minimises additions: per window every point once, then twice the buckets for the sums. */
static int best_window(Py_ssize_t count, int bits, int *windows) {
    int best = 2;
    double best_cost = -1.0;
    for (int c = 2; c <= MAX_WINDOW; c++) {
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

static void free_plan(Plan *plan) {
    free(plan->points);
    free(plan->digits);
    free(plan->buckets);
    free(plan->filled);
}

static void accumulate(struct decaf_255_point_s *into, uint8_t *filled, const struct decaf_255_point_s *point, int negative) {
    if (!*filled) {
        if (negative) decaf_255_point_negate(into, point);
        else decaf_255_point_copy(into, point);
        *filled = 1;
    } else if (negative) {
        decaf_255_point_sub(into, into, point);
    } else {
        decaf_255_point_add(into, into, point);
    }
}

static void evaluate(const Plan *plan, decaf_255_point_t out) {
    int buckets = 1 << (plan->window - 1);
    uint8_t acc_filled = 0;
    for (int k = plan->windows - 1; k >= 0; k--) {
        if (acc_filled) {
            for (int j = 0; j < plan->window; j++) decaf_255_point_double(out, out);
        }
        memset(plan->filled, 0, (size_t)buckets);
        for (Py_ssize_t i = 0; i < plan->count; i++) {
            int d = plan->digits[i * plan->windows + k];
            if (d) accumulate(&plan->buckets[abs(d) - 1], &plan->filled[abs(d) - 1], &plan->points[i], d < 0);
        }
        /* Σ b·bucket[b] as a running sum of running sums, from the top bucket down. */
        decaf_255_point_t running, total;
        uint8_t running_filled = 0, total_filled = 0;
        for (int b = buckets - 1; b >= 0; b--) {
            if (plan->filled[b]) accumulate(running, &running_filled, &plan->buckets[b], 0);
            if (running_filled) accumulate(total, &total_filled, running, 0);
        }
        if (total_filled) accumulate(out, &acc_filled, total, 0);
    }
    if (!acc_filled) decaf_255_point_copy(out, decaf_255_point_identity);
}

static void *aligned(size_t count, size_t size) {
    void *memory = NULL;
    if (count == 0) count = 1;
    return posix_memalign(&memory, 64, count * size) == 0 ? memory : NULL;
}

/* Decode and recode the inputs; returns -1 (with a Python error set) naming the first bad scalar or point. */
static int prepare(Plan *plan, const uint8_t *scalars, const uint8_t *points) {
    uint8_t (*folded)[BYTES] = aligned((size_t)plan->count, BYTES);
    plan->points = aligned((size_t)plan->count, sizeof(struct decaf_255_point_s));
    if (!folded || !plan->points) {
        free(folded);
        PyErr_NoMemory();
        return -1;
    }
    int bits = 0;
    for (Py_ssize_t i = 0; i < plan->count; i++) {
        decaf_255_scalar_t s;
        if (decaf_255_scalar_decode(s, scalars + BYTES * i) != DECAF_SUCCESS) {
            free(folded);
            PyErr_Format(PyExc_ValueError, "scalar %zd is not reduced modulo the group order", i);
            return -1;
        }
        if (decaf_255_point_decode(&plan->points[i], points + BYTES * i, DECAF_FALSE) != DECAF_SUCCESS) {
            free(folded);
            PyErr_Format(PyExc_ValueError, "point %zd is not a valid non-identity ristretto255 encoding", i);
            return -1;
        }
        if (above_half(scalars + BYTES * i)) {
            decaf_255_scalar_sub(s, decaf_255_scalar_zero, s);
            decaf_255_point_negate(&plan->points[i], &plan->points[i]);
        }
        decaf_255_scalar_encode(folded[i], s);
        int b = bit_length(folded[i]);
        if (b > bits) bits = b;
    }
    plan->window = best_window(plan->count, bits, &plan->windows);
    plan->digits = aligned((size_t)plan->count * (size_t)plan->windows, sizeof(int32_t));
    plan->buckets = aligned((size_t)1 << (plan->window - 1), sizeof(struct decaf_255_point_s));
    plan->filled = aligned((size_t)1 << (plan->window - 1), 1);
    if (!plan->digits || !plan->buckets || !plan->filled) {
        free(folded);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < plan->count; i++) {
        recode(folded[i], plan->window, plan->windows, plan->digits + i * plan->windows);
    }
    free(folded);
    return 0;
}

static PyObject *msm(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer scalars, points;
    if (!PyArg_ParseTuple(args, "y*y*:msm", &scalars, &points)) return NULL;
    PyObject *result = NULL;
    Plan plan = {0};
    if (scalars.len != points.len || points.len % BYTES) {
        PyErr_SetString(PyExc_ValueError, "msm takes as many 32-byte scalars as 32-byte points");
        goto done;
    }
    plan.count = points.len / BYTES;
    if (prepare(&plan, scalars.buf, points.buf) < 0) goto done;
    decaf_255_point_t sum;
    uint8_t encoded[BYTES];
    Py_BEGIN_ALLOW_THREADS
    evaluate(&plan, sum);
    decaf_255_point_encode(encoded, sum);
    Py_END_ALLOW_THREADS
    result = PyBytes_FromStringAndSize((const char *)encoded, BYTES);
done:
    free_plan(&plan);
    PyBuffer_Release(&scalars);
    PyBuffer_Release(&points);
    return result;
}

static PyMethodDef methods[] = {
    {"msm", msm, METH_VARARGS,
     "msm(scalars, points) -> bytes: the encoding of sum(s_i * P_i); 32 bytes per scalar and per point.\n"
     "Scalars must be reduced, points valid non-identity encodings (ValueError names the first that is not).\n"
     "Variable time: for public inputs only."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_msm",
    .m_doc = "ristretto255 multi-scalar multiplication (libdecaf arithmetic, bucket method)",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__msm(void) { return PyModule_Create(&module); }
