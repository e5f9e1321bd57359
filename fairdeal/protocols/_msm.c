/* Multi-scalar multiplication in ristretto255 for verifiers: sum of s_i * P_i over public inputs.
 *
 * All field and point arithmetic is libdecaf's (Mike Hamburg's reference implementation of decaf/ristretto,
 * whose decaf_255 group is ristretto255 of RFC 9496, byte for byte the encoding libsodium uses). The schedule,
 * the bucket method (Pippenger) over signed digits, is msm_buckets.h, which the browser's WebAssembly shares. It runs in variable time,
 * so it is for public scalars only; provers keep libsodium's constant-time single multiplications.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <decaf/point_255.h>
#include <stdlib.h>
#include <string.h>

#define MSM_POINT struct decaf_255_point_s
#define MSM_INPUT struct decaf_255_point_s
#define MSM_SET(r, in, neg) ((neg) ? decaf_255_point_negate((r), (in)) : decaf_255_point_copy((r), (in)))
#define MSM_ADD_INPUT(r, in, neg) ((neg) ? decaf_255_point_sub((r), (r), (in)) : decaf_255_point_add((r), (r), (in)))
#define MSM_ADD(r, p) decaf_255_point_add((r), (r), (p))
#define MSM_COPY(r, p) decaf_255_point_copy((r), (p))
#define MSM_DOUBLE(r) decaf_255_point_double((r), (r))
#define MSM_IDENTITY(r) decaf_255_point_copy((r), decaf_255_point_identity)
#include "msm_buckets.h"

#define BYTES MSM_BYTES
typedef MsmPlan Plan;

static void free_plan(Plan *plan) {
    free(plan->points);
    free(plan->digits);
    free(plan->buckets);
    free(plan->filled);
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
        if (msm_above_half(scalars + BYTES * i)) {
            decaf_255_scalar_sub(s, decaf_255_scalar_zero, s);
            decaf_255_point_negate(&plan->points[i], &plan->points[i]);
        }
        decaf_255_scalar_encode(folded[i], s);
        int b = msm_bit_length(folded[i]);
        if (b > bits) bits = b;
    }
    plan->window = msm_best_window(plan->count, bits, &plan->windows);
    plan->digits = aligned((size_t)plan->count * (size_t)plan->windows, sizeof(int32_t));
    plan->buckets = aligned((size_t)1 << (plan->window - 1), sizeof(struct decaf_255_point_s));
    plan->filled = aligned((size_t)1 << (plan->window - 1), 1);
    if (!plan->digits || !plan->buckets || !plan->filled) {
        free(folded);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < plan->count; i++) {
        msm_recode(folded[i], plan->window, plan->windows, plan->digits + i * plan->windows);
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
    msm_evaluate(&plan, sum);
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
