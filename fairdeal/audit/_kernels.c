/* The bulk audit's per-hand loops over a block's op tables and permutations (fairdeal/audit/kernels.py wraps
   them; the numpy functions they replace stay as the reference the tests compare them with).

   Every array is a C-contiguous buffer: int64 unless said otherwise. Op kinds are those of fairdeal.log.bulk:
   0 no-op, 1 a card-by-card run of the top k (reverses them), 2 a cut moving the top d cards to the bottom. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NO_OP 0
#define RUN 1
#define CUT 2
#define MAX_DECK 256

/* new = old[index] for one op; -1 when the op does not fit the deck. */
static int step_index(int64_t kind, int64_t arg, int n, int *index) {
    if (kind == NO_OP) {
        for (int p = 0; p < n; p++) index[p] = p;
        return 0;
    }
    if (arg < 0 || arg > n) return -1;
    int a = (int)arg;
    if (kind == RUN) {
        for (int p = 0; p < n; p++) index[p] = p < a ? a - 1 - p : p;
        return 0;
    }
    if (kind == CUT) {
        for (int p = 0; p < n; p++) index[p] = (p + a) % n;
        return 0;
    }
    return -1;
}

static int check_deck(Py_ssize_t n) {
    if (n < 1 || n > MAX_DECK) {
        PyErr_Format(PyExc_ValueError, "a deck of %zd cards: the kernels take 1 to %d", n, MAX_DECK);
        return -1;
    }
    return 0;
}

static int bad_op(Py_ssize_t row, Py_ssize_t step) {
    PyErr_Format(PyExc_ValueError, "row %zd, action %zd: the op does not fit the deck", row, step + 1);
    return -1;
}

/* apply_ops(kinds, args, orders, out, n): out[r] = orders[r] after row r's ops. */
static PyObject *py_apply_ops(PyObject *self, PyObject *args) {
    Py_buffer kb, ab, ob, outb;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*y*w*n", &kb, &ab, &ob, &outb, &n)) return NULL;
    PyObject *result = NULL;
    if (check_deck(n) < 0) goto done;
    Py_ssize_t rows = ob.len / (Py_ssize_t)(8 * n);
    Py_ssize_t steps = rows ? kb.len / (8 * rows) : 0;
    if (ob.len != rows * n * 8 || outb.len != ob.len || kb.len != rows * steps * 8 || ab.len != kb.len) {
        PyErr_SetString(PyExc_ValueError, "apply_ops: the buffers disagree in length");
        goto done;
    }
    const int64_t *kinds = kb.buf, *argv = ab.buf, *orders = ob.buf;
    int64_t *out = outb.buf;
    int index[MAX_DECK];
    int64_t scratch[MAX_DECK];
    for (Py_ssize_t r = 0; r < rows; r++) {
        int64_t *deck = out + r * n;
        memcpy(deck, orders + r * n, (size_t)n * 8);
        for (Py_ssize_t s = 0; s < steps; s++) {
            int64_t kind = kinds[r * steps + s];
            if (kind == NO_OP) continue;
            if (step_index(kind, argv[r * steps + s], (int)n, index) < 0) {
                bad_op(r, s);
                goto done;
            }
            for (Py_ssize_t p = 0; p < n; p++) scratch[p] = deck[index[p]];
            memcpy(deck, scratch, (size_t)n * 8);
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&kb); PyBuffer_Release(&ab); PyBuffer_Release(&ob); PyBuffer_Release(&outb);
    return result;
}

/* undone_windows(kinds, args, lengths, labels): [(row, start, stop, identity)], per row by start. With R_k the
   inverse of the first k steps' permutation, steps start+1..stop leave every receiver's cards as before exactly
   when labels[R_start] == labels[R_stop], and restore the deck when R_start == R_stop; for each stop only the
   latest start counts, kept when no window found so far starts at or after it (the shortest windows). */
static PyObject *py_undone_windows(PyObject *self, PyObject *args) {
    Py_buffer kb, ab, lb, tb;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &kb, &ab, &lb, &tb)) return NULL;
    PyObject *result = NULL, *found = NULL;
    uint8_t *keys = NULL, *inverses = NULL;
    Py_ssize_t n = tb.len, rows = lb.len / 8;
    if (check_deck(n) < 0) goto done;
    Py_ssize_t steps = rows ? kb.len / (8 * rows) : 0;
    if (lb.len != rows * 8 || kb.len != rows * steps * 8 || ab.len != kb.len) {
        PyErr_SetString(PyExc_ValueError, "undone_windows: the buffers disagree in length");
        goto done;
    }
    const int64_t *kinds = kb.buf, *argv = ab.buf, *lengths = lb.buf;
    const uint8_t *labels = tb.buf;
    keys = malloc((size_t)(steps + 1) * (size_t)n);
    inverses = malloc((size_t)(steps + 1) * (size_t)n);
    found = PyList_New(0);
    if (keys == NULL || inverses == NULL || found == NULL) {
        if (found != NULL) PyErr_NoMemory();
        else if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    int index[MAX_DECK], inv[MAX_DECK];
    for (Py_ssize_t r = 0; r < rows; r++) {
        Py_ssize_t length = lengths[r];
        if (length < 0 || length > steps) {
            PyErr_Format(PyExc_ValueError, "row %zd: %zd steps of %zd", r, length, steps);
            goto done;
        }
        if (length < 2) continue;
        for (Py_ssize_t p = 0; p < n; p++) {
            inverses[p] = (uint8_t)p;
            keys[p] = labels[p];
        }
        for (Py_ssize_t s = 1; s <= length; s++) {
            if (step_index(kinds[r * steps + s - 1], argv[r * steps + s - 1], (int)n, index) < 0) {
                bad_op(r, s - 1);
                goto done;
            }
            for (int p = 0; p < n; p++) inv[index[p]] = p;
            const uint8_t *before = inverses + (s - 1) * n;
            uint8_t *after = inverses + s * n, *key = keys + s * n;
            for (Py_ssize_t p = 0; p < n; p++) {
                after[p] = (uint8_t)inv[before[p]];
                key[p] = labels[after[p]];
            }
        }
        Py_ssize_t inner = -1;
        for (Py_ssize_t stop = 2; stop <= length; stop++) {
            Py_ssize_t start = stop - 2;
            while (start >= 0 && memcmp(keys + start * n, keys + stop * n, (size_t)n) != 0) start--;
            if (start < 0) continue;
            if (start > inner) {
                int identity = memcmp(inverses + start * n, inverses + stop * n, (size_t)n) == 0;
                PyObject *item = Py_BuildValue("(nnnO)", r, start, stop, identity ? Py_True : Py_False);
                if (item == NULL || PyList_Append(found, item) < 0) {
                    Py_XDECREF(item);
                    goto done;
                }
                Py_DECREF(item);
                inner = start;
            }
        }
    }
    result = found;
    found = NULL;
done:
    free(keys);
    free(inverses);
    Py_XDECREF(found);
    PyBuffer_Release(&kb); PyBuffer_Release(&ab); PyBuffer_Release(&lb); PyBuffer_Release(&tb);
    return result;
}

static int64_t mod(int64_t a, int64_t n) {
    int64_t m = a % n;
    return m < 0 ? m + n : m;
}

/* Diaconis' guessing game: the old successor of the card just shown while unseen, else the highest unseen. */
static int64_t guessing(const int64_t *p, int n, int cyclic, uint8_t *seen) {
    memset(seen, 0, (size_t)n + 1);
    seen[n] = 1;
    int64_t score = 0, guess = 0;
    int lowest = 0;
    for (int t = 0; t < n; t++) {
        int64_t shown = p[t];
        score += shown == guess;
        seen[shown] = 1;
        while (lowest < n && seen[lowest]) lowest++;
        int64_t successor = cyclic ? (shown + 1) % n : shown + 1;
        guess = seen[successor] ? (lowest < n ? lowest : 0) : successor;
    }
    return score;
}

/* The longest stretch still in its old order: kept pairs are neighbours whose labels step by one (cyclically:
   mod n, and a stretch may wrap from the bottom to the top). */
static int64_t longest_block(const int64_t *p, int n, int cyclic) {
    if (n == 1) return 1;
    int pairs = cyclic ? n : n - 1, run = 0, best = 0, all = 1;
    for (int i = 0; i < (cyclic ? 2 * pairs : pairs); i++) {
        int j = i % pairs;
        int kept = cyclic ? mod(p[(j + 1) % n] - p[j], n) == 1 : p[j + 1] - p[j] == 1;
        all &= kept;
        run = kept ? run + 1 : 0;
        if (run > best) best = run;
    }
    if (cyclic && all) return n;
    return best + 1 < n ? best + 1 : n;
}

/* 1 + breaks - [any break], least over every cut after the shuffle: the pair of positions (x, y) of a label
   and its cyclic successor is a break for a cut of depth a exactly when a lies in the cyclic interval (x, y]. */
static int64_t cyclic_rising(const int *where, int n, int64_t *marks) {
    memset(marks, 0, sizeof(int64_t) * 2 * (size_t)n);
    for (int j = 0; j < n; j++) {
        int start = where[j] + 1, length = (int)mod(where[(j + 1) % n] - where[j], n);
        marks[start]++;
        if (start + length < 2 * n) marks[start + length]--;
    }
    int64_t best = INT64_MAX, cover = 0, low[MAX_DECK];
    for (int a = 0; a < 2 * n; a++) {
        cover += marks[a];
        if (a < n) low[a] = cover;
        else {
            int64_t breaks = low[a - n] + cover, count = 1 + breaks - (breaks > 0);
            if (count < best) best = count;
        }
    }
    return best;
}

/* quality_measures(perms, out, n): quality.MEASURES of each relative permutation, ten int64 per row. */
static PyObject *py_quality_measures(PyObject *self, PyObject *args) {
    Py_buffer pb, outb;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*w*n", &pb, &outb, &n)) return NULL;
    PyObject *result = NULL;
    if (check_deck(n) < 0) goto done;
    Py_ssize_t rows = pb.len / (8 * n);
    if (pb.len != rows * n * 8 || outb.len != rows * 10 * 8) {
        PyErr_SetString(PyExc_ValueError, "quality_measures: the buffers disagree in length");
        goto done;
    }
    const int64_t *perms = pb.buf;
    int64_t *out = outb.buf;
    int where[MAX_DECK];
    uint8_t seen[MAX_DECK + 1];
    int64_t marks[2 * MAX_DECK];
    for (Py_ssize_t r = 0; r < rows; r++) {
        const int64_t *p = perms + r * n;
        int64_t *m = out + r * 10;
        memset(where, -1, sizeof where);
        for (int i = 0; i < n; i++) {
            if (p[i] < 0 || p[i] >= n || where[p[i]] >= 0) {
                PyErr_Format(PyExc_ValueError, "row %zd is not a permutation of %zd", r, n);
                goto done;
            }
            where[p[i]] = i;
        }
        int64_t preserved = 0, reversed = 0, cyc_preserved = 0, cyc_reversed = 0, rising = 1;
        for (int i = 0; i < n; i++) {
            int64_t step = mod(p[(i + 1) % n] - p[i], n);
            cyc_preserved += step == 1 % n;
            cyc_reversed += step == n - 1;
            if (i + 1 < n) {
                preserved += p[i + 1] - p[i] == 1;
                reversed += p[i + 1] - p[i] == -1;
                rising += where[i + 1] < where[i];
            }
        }
        m[0] = preserved;
        m[1] = reversed;
        m[2] = longest_block(p, (int)n, 0);
        m[3] = rising;
        m[4] = guessing(p, (int)n, 0, seen);
        m[5] = cyc_preserved;
        m[6] = cyc_reversed;
        m[7] = longest_block(p, (int)n, 1);
        m[8] = cyclic_rising(where, (int)n, marks);
        m[9] = guessing(p, (int)n, 1, seen);
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&pb); PyBuffer_Release(&outb);
    return result;
}

/* One cut and beneficiary's ranks, for k values at stride `stride`. Whole-number values within a small range
   (points, the usual case) are counted in a histogram; any others are compared depth against depth. */
#define RANK_RANGE 512
static void rank_one(const float *v, Py_ssize_t stride, int k, int64_t *below, int64_t *ties) {
    float lo = v[0], hi = v[0];
    int whole = 1;
    for (int d = 0; d < k; d++) {
        float x = v[d * stride];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        whole &= x > -1e9f && x < 1e9f && x == (float)(int32_t)x;  /* in range before the cast */
    }
    if (whole && hi - lo < RANK_RANGE) {
        int32_t count[RANK_RANGE + 1], base = (int32_t)lo;
        int32_t span = (int32_t)hi - base + 1;
        memset(count, 0, sizeof(int32_t) * (size_t)(span + 1));  /* only the range used: most cuts span a few dozen */
        for (int d = 0; d < k; d++) count[(int32_t)v[d * stride] - base + 1]++;
        int32_t running[RANK_RANGE + 1];
        running[0] = 0;
        for (int32_t i = 1; i <= span; i++) running[i] = running[i - 1] + count[i];
        for (int d = 0; d < k; d++) {
            int32_t i = (int32_t)v[d * stride] - base;
            below[d * stride] = running[i];
            ties[d * stride] = count[i + 1];
        }
        return;
    }
    for (int d = 0; d < k; d++) {
        const float at = v[d * stride];
        int64_t less = 0, same = 0;
        for (int e = 0; e < k; e++) {
            less += v[e * stride] < at;
            same += v[e * stride] == at;
        }
        below[d * stride] = less;
        ties[d * stride] = same;
    }
}

/* rank_counts(values, below, ties, depths, beneficiaries): float32 values of shape (cases, depths,
   beneficiaries); per entry, how many depths of its cut and beneficiary give less, and how many the same. */
static PyObject *py_rank_counts(PyObject *self, PyObject *args) {
    Py_buffer vb, bb, tb;
    Py_ssize_t k, width;
    if (!PyArg_ParseTuple(args, "y*w*w*nn", &vb, &bb, &tb, &k, &width)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t block = k * width, cases = block > 0 ? vb.len / (4 * block) : 0;
    if (k < 1 || k > MAX_DECK || width < 1 || vb.len != cases * block * 4 || bb.len != cases * block * 8
        || tb.len != bb.len) {
        PyErr_SetString(PyExc_ValueError, "rank_counts: the buffers disagree in length");
        goto done;
    }
    const float *values = vb.buf;
    int64_t *below = bb.buf, *ties = tb.buf;
    for (Py_ssize_t c = 0; c < cases; c++)
        for (Py_ssize_t b = 0; b < width; b++)
            rank_one(values + c * block + b, width, (int)k, below + c * block + b, ties + c * block + b);
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&vb); PyBuffer_Release(&bb); PyBuffer_Release(&tb);
    return result;
}

/* depth_values(pre, after, depths, targets, points, out, receivers): float32 out of shape (cases, depths,
   receivers), what each receiver gets from each cut depth: the place q of the deck cut at depth d holds the card
   pre[(q + d) mod n], and the actions after the cut deliver place q to targets[after^-1[q]]. The points are whole
   numbers (value.card_points), so their float32 sums do not depend on the order of addition. */
static PyObject *py_depth_values(PyObject *self, PyObject *args) {
    Py_buffer pb, ab, db, tb, vb, ob;
    Py_ssize_t receivers;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*w*n", &pb, &ab, &db, &tb, &vb, &ob, &receivers)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = tb.len / 8, k = db.len / 8, codes = vb.len / 4;
    if (check_deck(n) < 0) goto done;
    Py_ssize_t cases = pb.len / (8 * n);
    if (receivers < 1 || tb.len != n * 8 || db.len != k * 8 || vb.len != codes * 4 || pb.len != cases * n * 8
        || ab.len != pb.len || ob.len != cases * k * receivers * 4) {
        PyErr_SetString(PyExc_ValueError, "depth_values: the buffers disagree in length");
        goto done;
    }
    const int64_t *pre = pb.buf, *after = ab.buf, *depths = db.buf, *targets = tb.buf;
    const float *points = vb.buf;
    float *out = ob.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (targets[i] < 0 || targets[i] >= receivers) {
            PyErr_Format(PyExc_ValueError, "place %zd goes to receiver %lld of %zd", i, (long long)targets[i],
                         receivers);
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        if (depths[i] < 0 || depths[i] > n) {
            PyErr_Format(PyExc_ValueError, "a cut of depth %lld in a deck of %zd", (long long)depths[i], n);
            goto done;
        }
    }
    float pts[2 * MAX_DECK];
    int feeds[MAX_DECK], seen[MAX_DECK];
    for (Py_ssize_t c = 0; c < cases; c++) {
        const int64_t *deck = pre + c * n, *gather = after + c * n;
        memset(seen, 0, sizeof seen);
        for (Py_ssize_t p = 0; p < n; p++) {
            int64_t q = gather[p];
            if (deck[p] < 0 || deck[p] >= codes || q < 0 || q >= n || seen[q]) {
                PyErr_Format(PyExc_ValueError, "case %zd: the deck or the actions after the cut are not a deck", c);
                goto done;
            }
            seen[q] = 1;
            feeds[q] = (int)targets[p];
            pts[p] = pts[p + n] = points[deck[p]];
        }
        float *row = out + c * k * receivers;
        memset(row, 0, sizeof(float) * (size_t)(k * receivers));
        for (Py_ssize_t d = 0; d < k; d++) {
            const float *rotated = pts + depths[d];
            float *cell = row + d * receivers;
            for (Py_ssize_t q = 0; q < n; q++) cell[feeds[q]] += rotated[q];
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&pb); PyBuffer_Release(&ab); PyBuffer_Release(&db); PyBuffer_Release(&tb);
    PyBuffer_Release(&vb); PyBuffer_Release(&ob);
    return result;
}

/* score_sums(below, ties, index, weight, table, chosen, by_depth, squares, rows, depths, beneficiaries): the
   habit test's sums over one cutter's cuts of a block, the cuts named by `rows` (so the block's arrays are read
   in place, not copied per cutter). A depth's score is table[below][ties][tail] times the cut's weight for the
   beneficiary; chosen (beneficiaries, 2) sums the chosen depth's, by_depth and squares (depths, beneficiaries, 2)
   every depth's and its square. Cuts are added in order, starting from the first (as numpy sums an outer axis),
   so the sums are numpy's to the last bit. */
static PyObject *py_score_sums(PyObject *self, PyObject *args) {
    Py_buffer bb, tb, ib, wb, sb, cb, db, qb, rb;
    Py_ssize_t k, width;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*w*w*w*y*nn", &bb, &tb, &ib, &wb, &sb, &cb, &db, &qb, &rb, &k, &width))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t cases = ib.len / 8, block = k * width, selected = rb.len / 8;
    if (k < 1 || width < 1 || bb.len != cases * block * 8 || tb.len != bb.len || wb.len != cases * width * 8
        || sb.len != (k + 1) * (k + 1) * 2 * 8 || cb.len != width * 2 * 8 || db.len != block * 2 * 8
        || qb.len != db.len) {
        PyErr_SetString(PyExc_ValueError, "score_sums: the buffers disagree in length");
        goto done;
    }
    const int64_t *below = bb.buf, *ties = tb.buf, *index = ib.buf;
    const double *weight = wb.buf, *table = sb.buf;
    double *chosen = cb.buf, *by_depth = db.buf, *squares = qb.buf;
    const int64_t *rows = rb.buf;
    for (Py_ssize_t i = 0; i < selected; i++) {
        Py_ssize_t c = rows[i];
        if (c < 0 || c >= cases) {
            PyErr_Format(PyExc_ValueError, "row %zd of %zd cuts", c, cases);
            goto done;
        }
        if (index[c] < 0 || index[c] >= k) {
            PyErr_Format(PyExc_ValueError, "cut %zd: depth index %lld of %zd", c, (long long)index[c], k);
            goto done;
        }
        for (Py_ssize_t d = 0; d < k; d++) {
            for (Py_ssize_t b = 0; b < width; b++) {
                Py_ssize_t at = c * block + d * width + b;
                if (below[at] < 0 || ties[at] < 0 || below[at] > k || ties[at] > k) {
                    PyErr_Format(PyExc_ValueError, "cut %zd: rank counts out of range", c);
                    goto done;
                }
                const double *score = table + (below[at] * (k + 1) + ties[at]) * 2;
                for (int t = 0; t < 2; t++) {
                    double w = score[t] * weight[c * width + b];
                    Py_ssize_t cell = (d * width + b) * 2 + t;
                    by_depth[cell] = i ? by_depth[cell] + w : w;
                    squares[cell] = i ? squares[cell] + w * w : w * w;
                    if (d == index[c]) chosen[b * 2 + t] = i ? chosen[b * 2 + t] + w : w;
                }
            }
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&bb); PyBuffer_Release(&tb); PyBuffer_Release(&ib); PyBuffer_Release(&wb);
    PyBuffer_Release(&sb); PyBuffer_Release(&cb); PyBuffer_Release(&db); PyBuffer_Release(&qb);
    PyBuffer_Release(&rb);
    return result;
}

/* cusum_peaks(scores, edges, uniform, level, peak, steps): Page's CUSUM run on by `steps` draws for every simulated
   dealer, one row of `uniform` (float64 in [0, 1)) each; a draw's category is the number of `edges` (the law's
   cumulative sums but the last, ascending) at or below it, the inverse CDF: level = max(0, level + scores[category])
   and its running peak, both carried in and out. A score of -inf resets the level, as in the definition. */
static PyObject *py_cusum_peaks(PyObject *self, PyObject *args) {
    Py_buffer sb, eb, ub, lb, pb;
    Py_ssize_t steps;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*n", &sb, &eb, &ub, &lb, &pb, &steps)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t k = sb.len / 8, nedges = eb.len / 8, rows = lb.len / 8;
    if (steps < 0 || k < 1 || nedges != k - 1 || pb.len != lb.len || ub.len != rows * steps * 8) {
        PyErr_SetString(PyExc_ValueError, "cusum_peaks: the buffers disagree in length");
        goto done;
    }
    const double *scores = sb.buf, *edges = eb.buf, *uniform = ub.buf;
    double *level = lb.buf, *peak = pb.buf;
    /* Without the interpreter lock: the verdict simulates this beside its other tests, in a thread. */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        double at = level[r], top = peak[r];
        const double *row = uniform + r * steps;
        for (Py_ssize_t t = 0; t < steps; t++) {
            Py_ssize_t category = 0;
            for (Py_ssize_t e = 0; e < nedges; e++) category += row[t] >= edges[e];
            at = at + scores[category];
            at = at > 0.0 ? at : 0.0;
            top = at > top ? at : top;
        }
        level[r] = at;
        peak[r] = top;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&sb); PyBuffer_Release(&eb); PyBuffer_Release(&ub); PyBuffer_Release(&lb);
    PyBuffer_Release(&pb);
    return result;
}

/* feature_counts(recv, dealers, target_of, active, ace, suit, points, low, counts, codes, seats, receivers,
   targets, width): each deal's feature values for every target at once, added to the histograms
   counts (seats, targets, 4, width) of the dealer: recv (deals, codes) int8 receiver of each card code (-1: not
   dealt), target_of (seats, receivers) the target a receiver's cards go to when that seat deals (-1: none),
   active (seats, targets) which targets the dealer's deals are counted for; per code: ace, suit (-1 off the
   deck), points, low. Features in features/laws.py order: aces, longest suit, high-card points, low cards. */
#define FEATURE_SUITS 4
static PyObject *py_feature_counts(PyObject *self, PyObject *args) {
    Py_buffer rb, db, tb, ab, eb, sb, pb, lb, cb;
    Py_ssize_t codes, seats, receivers, targets, width;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*w*nnnnn", &rb, &db, &tb, &ab, &eb, &sb, &pb, &lb, &cb, &codes,
                          &seats, &receivers, &targets, &width))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t deals = db.len / 8;
    int64_t *scratch = NULL;
    if (codes < 1 || seats < 1 || receivers < 1 || targets < 1 || width < 1 || rb.len != deals * codes
        || tb.len != seats * receivers * 8 || ab.len != seats * targets || eb.len != codes || sb.len != codes * 8
        || pb.len != codes * 8 || lb.len != codes || cb.len != seats * targets * 4 * width * 8) {
        PyErr_SetString(PyExc_ValueError, "feature_counts: the buffers disagree in length");
        goto done;
    }
    const int8_t *recv = rb.buf;
    const int64_t *dealers = db.buf, *target_of = tb.buf, *suit = sb.buf, *points = pb.buf;
    const uint8_t *active = ab.buf, *ace = eb.buf, *low = lb.buf;
    int64_t *counts = cb.buf;
    scratch = calloc((size_t)targets * (FEATURE_SUITS + 3), sizeof(int64_t));
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t r = 0; r < deals; r++) {
        int64_t dealer = dealers[r];
        if (dealer < 0 || dealer >= seats) {
            PyErr_Format(PyExc_ValueError, "deal %zd: dealer %lld of %zd seats", r, (long long)dealer, seats);
            goto done;
        }
        memset(scratch, 0, sizeof(int64_t) * (size_t)targets * (FEATURE_SUITS + 3));
        for (Py_ssize_t c = 0; c < codes; c++) {
            int receiver = recv[r * codes + c];
            if (receiver < 0) continue;
            if (receiver >= receivers || suit[c] < 0 || suit[c] >= FEATURE_SUITS) {
                PyErr_Format(PyExc_ValueError, "deal %zd: card code %zd goes to receiver %d off the table", r, c,
                             receiver);
                goto done;
            }
            int64_t t = target_of[dealer * receivers + receiver];
            if (t < 0) continue;
            int64_t *at = scratch + t * (FEATURE_SUITS + 3);
            at[0] += ace[c];
            at[3 + suit[c]] += 1;
            at[1] += points[c];
            at[2] += low[c];
        }
        for (Py_ssize_t t = 0; t < targets; t++) {
            if (!active[dealer * targets + t]) continue;
            const int64_t *at = scratch + t * (FEATURE_SUITS + 3);
            int64_t longest = 0;
            for (int s = 0; s < FEATURE_SUITS; s++) longest = at[3 + s] > longest ? at[3 + s] : longest;
            int64_t value[4] = {at[0], longest, at[1], at[2]};
            int64_t *cell = counts + (dealer * targets + t) * 4 * width;
            for (int f = 0; f < 4; f++) cell[f * width + (value[f] < width - 1 ? value[f] : width - 1)] += 1;
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    free(scratch);
    PyBuffer_Release(&rb); PyBuffer_Release(&db); PyBuffer_Release(&tb); PyBuffer_Release(&ab);
    PyBuffer_Release(&eb); PyBuffer_Release(&sb); PyBuffer_Release(&pb); PyBuffer_Release(&lb);
    PyBuffer_Release(&cb);
    return result;
}

static PyMethodDef methods[] = {
    {"apply_ops", py_apply_ops, METH_VARARGS, "Deck orders after each row's runs and cuts."},
    {"undone_windows", py_undone_windows, METH_VARARGS, "The shortest windows of steps that change nothing."},
    {"quality_measures", py_quality_measures, METH_VARARGS, "The shuffle-quality measures of permutations."},
    {"rank_counts", py_rank_counts, METH_VARARGS, "Depths below and tied with each depth's value."},
    {"score_sums", py_score_sums, METH_VARARGS, "The habit test's score sums over a cutter's cuts."},
    {"depth_values", py_depth_values, METH_VARARGS, "What each receiver gets from each cut depth."},
    {"feature_counts", py_feature_counts, METH_VARARGS, "Every target's feature histograms of a block's deals."},
    {"cusum_peaks", py_cusum_peaks, METH_VARARGS, "Simulated CUSUM levels and peaks, carried over a slice of draws."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels", "The bulk audit's kernels.", -1, methods};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
