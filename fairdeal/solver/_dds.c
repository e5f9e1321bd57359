/* Double-dummy solver for Preferans trick play (2 or 3 seats at the tricks, 1..10 cards each).
 *
 * Cards are the codes of fairdeal/cards.py (suit * 8 + rank), a hand is a 32-bit mask. Seats are numbered in
 * play order 0..n-1. The value searched is the number of tricks taken by the seats of `count_mask` from the
 * trick in progress on; the seats of `max_mask` maximise it and the others minimise it (a game: count and
 * maximise the declarer; misère: count the declarer, the others maximise).
 *
 * Rules: follow the led suit, else trump, else anything; with `overtake` a card that heads the trick must be
 * played when one can (Austrian, Croatian). A raspasy talon card sets the suit of its trick; with `talon_owner`
 * it also competes (four players: the trick it wins is the dealer's, nobody's here) and the next trick is led by
 * seat 0 again.
 *
 * Search: fail-soft alpha-beta driven by null-window probes (MTD(f)); a transposition table at trick boundaries keyed by the hands re-ranked among
 * the cards still out (so positions that differ only by cards already played share an entry), move ordering,
 * and equivalent cards (neighbours among the live cards, in one hand) tried once (and valued once).
 *
 * Each call of solve() starts a fresh table generation, so its node count depends on the position alone; with a
 * node limit the search gives up once it has visited that many nodes (a deterministic budget for the bots).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAXSEATS 3
#define MAXTALON 10
#define TT_BITS 20
#define TT_SIZE (1u << TT_BITS)

typedef struct {
    uint64_t k1, k2;
    uint32_t gen;
    int8_t lo, hi;
} Entry;

typedef struct {
    int n;
    int trump;                 /* -1: none */
    int overtake;
    int count_mask, max_mask;
    int ntalon, talon_owner;
    int talon[MAXTALON];       /* talon cards setting the suits of tricks 0..ntalon-1 from the root */
    uint32_t hands[MAXSEATS];
    long nodes;
    long limit;                /* 0: none; else give up past this many nodes */
    int aborted;
} Ctx;

static Entry *tt = NULL;
static uint32_t tt_gen = 0;
/* The rules a table's entries were computed under; a different rule set starts a new generation. */
static int tt_rules[5] = {-9, -9, -9, -9, -9};

static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }
static inline int lowbit(uint32_t x) { return __builtin_ctz(x); }
static inline int highbit(uint32_t x) { return 31 - __builtin_clz(x); }
static inline uint32_t suit_mask(int suit) { return 0xFFu << (suit * 8); }

static int tt_prepare(void) {
    if (tt == NULL) {
        tt = (Entry *)calloc(TT_SIZE, sizeof(Entry));
        if (tt == NULL) return -1;
    }
    return 0;
}

static void tt_new_generation(void) {
    tt_gen++;
    if (tt_gen == 0) { memset(tt, 0, TT_SIZE * sizeof(Entry)); tt_gen = 1; }
}

static void tt_rules_check(const Ctx *c) {
    int rules[5] = {c->n, c->trump, c->overtake, c->count_mask, c->max_mask};
    if (memcmp(rules, tt_rules, sizeof rules) != 0) {
        memcpy(tt_rules, rules, sizeof rules);
        tt_new_generation();
    }
}

/* Hands re-ranked within each suit among the live cards: the highest live card becomes the ace. */
static void relative_key(const Ctx *c, int leader, uint64_t *k1, uint64_t *k2) {
    uint32_t rel[MAXSEATS] = {0, 0, 0};
    uint32_t live = 0;
    for (int s = 0; s < c->n; s++) live |= c->hands[s];
    for (int suit = 0; suit < 4; suit++) {
        uint32_t bits = live & suit_mask(suit);
        int pos = suit * 8 + 7;
        while (bits) {
            int card = highbit(bits);
            bits &= ~(1u << card);
            for (int s = 0; s < c->n; s++)
                if (c->hands[s] & (1u << card)) { rel[s] |= 1u << pos; break; }
            pos--;
        }
    }
    *k1 = (uint64_t)rel[0] | ((uint64_t)rel[1] << 32);
    *k2 = (uint64_t)rel[2] | ((uint64_t)leader << 32);
}

static inline Entry *tt_slot(uint64_t k1, uint64_t k2) {
    uint64_t h = (k1 * 0x9E3779B97F4A7C15ull) ^ (k2 * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 29;
    return &tt[h & (TT_SIZE - 1)];
}

/* Whether `card` heads a trick whose best card so far is `best`. */
static inline int beats(int card, int best, int trump) {
    if (card / 8 == best / 8) return card > best;
    return trump >= 0 && card / 8 == trump;
}

/* The index in plays[] of the winner of a trick of plays with no talon card (the first play sets the suit). */
static int best_play(const int *plays, int np, int trump) {
    int w = 0;
    for (int i = 1; i < np; i++)
        if (beats(plays[i], plays[w], trump)) w = i;
    return w;
}

static uint32_t legal_mask(const Ctx *c, int seat, int led, const int *plays, int np) {
    uint32_t hand = c->hands[seat];
    if (led < 0) return hand;
    uint32_t allowed = hand & suit_mask(led);
    if (!allowed && c->trump >= 0) allowed = hand & suit_mask(c->trump);
    if (!allowed) allowed = hand;
    if (c->overtake && np > 0) {
        int best = plays[best_play(plays, np, c->trump)];
        uint32_t heading = 0, m = allowed;
        while (m) {
            int card = lowbit(m);
            m &= m - 1;
            if (beats(card, best, c->trump)) heading |= 1u << card;
        }
        if (heading) allowed = heading;
    }
    return allowed;
}

/* Seat taking a finished trick, -1 for the talon card's owner (who is not at the tricks). */
static int trick_winner(const Ctx *c, const int *plays, int leader, int talon_card) {
    int n = c->n;
    if (talon_card >= 0) {
        int suit = talon_card / 8, best = -1, who = -2;
        if (c->talon_owner) { best = talon_card; who = -1; }
        for (int i = 0; i < n; i++)
            if (plays[i] / 8 == suit && plays[i] > best) { best = plays[i]; who = (leader + i) % n; }
        if (who != -2) return who;
        int first = plays[0] / 8, w = 0;
        for (int i = 1; i < n; i++)
            if (plays[i] / 8 == first && plays[i] > plays[w]) w = i;
        return (leader + w) % n;
    }
    return (leader + best_play(plays, n, c->trump)) % n;
}

/* Legal cards with each run of neighbours among the live cards (all in `legal`) reduced to its highest. */
static uint32_t reduce_equivalents(uint32_t legal, uint32_t live) {
    uint32_t out = 0, m = legal;
    while (m) {
        int card = lowbit(m);
        m &= m - 1;
        uint32_t above = live & suit_mask(card / 8) & ~((2u << card) - 1);
        if (above && (legal & (1u << lowbit(above)))) continue;
        out |= 1u << card;
    }
    return out;
}

static int order_moves(const Ctx *c, int seat, uint32_t moves, const int *plays, int np, int leader,
                       int talon_card, int *out) {
    int wants = ((c->max_mask >> seat) & 1) == ((c->count_mask >> seat) & 1);   /* wants to take tricks */
    int scores[32], k = 0;
    int best = -1, best_seat = -1;
    if (np > 0) {
        int w = best_play(plays, np, c->trump);
        best = plays[w];
        best_seat = (leader + w) % c->n;
        if (talon_card >= 0 && best / 8 != talon_card / 8 && c->trump < 0) best = -1;
    }
    int friend_wins = best >= 0 && (((c->max_mask >> best_seat) & 1) == ((c->max_mask >> seat) & 1));
    uint32_t m = moves;
    while (m) {
        int card = lowbit(m);
        m &= m - 1;
        int rank = card & 7, score;
        if (np == 0) {
            score = wants ? rank : 8 - rank;
        } else {
            int heads = best < 0 || beats(card, best, c->trump);
            if (friend_wins) score = heads ? rank : 40 - rank;
            else if (wants) score = heads ? 60 - rank : 20 - rank;
            else score = heads ? rank : 40 + rank;
        }
        int i = k++;
        while (i > 0 && scores[i - 1] < score) { scores[i] = scores[i - 1]; out[i] = out[i - 1]; i--; }
        scores[i] = score;
        out[i] = card;
    }
    return k;
}

static int search(Ctx *c, int trick, int leader, int *plays, int np, int alpha, int beta);

/* One seat plays `card` into the trick; returns the value of the position after it. */
static int play_card(Ctx *c, int trick, int leader, int *plays, int np, int card, int alpha, int beta) {
    int seat = (leader + np) % c->n;
    int talon_card = trick < c->ntalon ? c->talon[trick] : -1;
    c->hands[seat] &= ~(1u << card);
    plays[np] = card;
    int v;
    if (np + 1 < c->n) {
        v = search(c, trick, leader, plays, np + 1, alpha, beta);
    } else {
        int w = trick_winner(c, plays, leader, talon_card);
        int won = w >= 0 && ((c->count_mask >> w) & 1);
        int next = talon_card >= 0 ? 0 : w;
        int sub[MAXSEATS];
        v = won + search(c, trick + 1, next, sub, 0, alpha - won, beta - won);
    }
    c->hands[seat] |= 1u << card;
    return v;
}

static int search(Ctx *c, int trick, int leader, int *plays, int np, int alpha, int beta) {
    int seat = (leader + np) % c->n;
    if (c->aborted || (c->limit && c->nodes >= c->limit)) { c->aborted = 1; return 0; }
    c->nodes++;
    Entry *slot = NULL;
    uint64_t k1 = 0, k2 = 0;
    int alpha0 = alpha, beta0 = beta;
    if (np == 0) {
        int left = popcount32(c->hands[leader]);
        if (left == 0) return 0;
        if (left <= alpha) return left;
        if (beta <= 0) return 0;
        if (trick >= c->ntalon) {
            relative_key(c, leader, &k1, &k2);
            slot = tt_slot(k1, k2);
            if (slot->gen == tt_gen && slot->k1 == k1 && slot->k2 == k2) {
                if (slot->lo >= beta) return slot->lo;
                if (slot->hi <= alpha) return slot->hi;
                if (slot->lo == slot->hi) return slot->lo;
                if (slot->lo > alpha) alpha = slot->lo;
                if (slot->hi < beta) beta = slot->hi;
            }
        }
    }
    int talon_card = trick < c->ntalon ? c->talon[trick] : -1;
    int led = talon_card >= 0 ? talon_card / 8 : (np > 0 ? plays[0] / 8 : -1);
    uint32_t legal = legal_mask(c, seat, led, plays, np);
    uint32_t live = 0;
    for (int s = 0; s < c->n; s++) live |= c->hands[s];
    for (int i = 0; i < np; i++) live |= 1u << plays[i];
    if (talon_card >= 0) live |= 1u << talon_card;
    int moves[32];
    int k = order_moves(c, seat, reduce_equivalents(legal, live), plays, np, leader, talon_card, moves);
    int maximise = (c->max_mask >> seat) & 1;
    int best = maximise ? -1 : 99;
    for (int i = 0; i < k; i++) {
        int v = play_card(c, trick, leader, plays, np, moves[i], alpha, beta);
        if (maximise) {
            if (v > best) best = v;
            if (best > alpha) alpha = best;
        } else {
            if (v < best) best = v;
            if (best < beta) beta = best;
        }
        if (alpha >= beta) break;
    }
    if (c->aborted) return 0;
    if (slot != NULL) {
        if (!(slot->gen == tt_gen && slot->k1 == k1 && slot->k2 == k2)) {
            slot->k1 = k1; slot->k2 = k2; slot->gen = tt_gen;
            slot->lo = 0; slot->hi = (int8_t)popcount32(c->hands[leader]);
        }
        if (best <= alpha0) { if (best < slot->hi) slot->hi = (int8_t)best; }
        else if (best >= beta0) { if (best > slot->lo) slot->lo = (int8_t)best; }
        else { slot->lo = slot->hi = (int8_t)best; }
    }
    return best;
}

/* The first probe: the middle where the counted seats maximise (a game); one trick where they minimise (misère,
   raspasy), whose values run low: proving small lower bounds first costs a sixth fewer nodes on random misères. */
static int first_guess(const Ctx *c, int hi) {
    return (c->count_mask & c->max_mask) ? (hi + 1) / 2 : (hi < 1 ? hi : 1);
}

/* The exact value by null-window probes (MTD(f)): each probe only asks "at least b?", which prunes far more than
   a full window, and the table keeps the bounds the probes found. */
static int solve_exact(Ctx *c, int leader, int *plays, int np) {
    int lo = 0, hi = popcount32(c->hands[leader]) + (np > 0);
    int guess = first_guess(c, hi);
    while (lo < hi && !c->aborted) {
        int b = guess > lo ? guess : lo + 1;
        int v = search(c, 0, leader, plays, np, b - 1, b);
        if (v < b) hi = v; else lo = v;
        guess = v;
    }
    return lo;
}

/* The exact value after the seat to play plays `card`, by null-window probes like solve_exact. */
static int value_after(Ctx *c, int leader, int *plays, int np, int card) {
    int lo = 0, hi = popcount32(c->hands[leader]) + (np > 0);
    int guess = first_guess(c, hi);
    while (lo < hi && !c->aborted) {
        int b = guess > lo ? guess : lo + 1;
        int v = play_card(c, 0, leader, plays, np, card, b - 1, b);
        if (v < b) hi = v; else lo = v;
        guess = v;
    }
    return lo;
}

/* ---- Python face --------------------------------------------------------------------------------------------- */

static int parse_cards(PyObject *seq, int *out, int cap, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > cap) { Py_DECREF(fast); PyErr_Format(PyExc_ValueError, "%s: at most %d cards", what, cap); return -1; }
    for (Py_ssize_t i = 0; i < len; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        if (v < 0 || v > 31) { Py_DECREF(fast); PyErr_Format(PyExc_ValueError, "%s: card code %ld", what, v); return -1; }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return (int)len;
}

static int check_position(const Ctx *c, int leader, const int *plays, int np) {
    uint32_t seen = 0;
    for (int s = 0; s < c->n; s++) {
        if (seen & c->hands[s]) { PyErr_SetString(PyExc_ValueError, "a card is in two hands"); return -1; }
        seen |= c->hands[s];
    }
    for (int i = 0; i < np; i++) {
        if (seen & (1u << plays[i])) { PyErr_SetString(PyExc_ValueError, "a card on the table is also in a hand"); return -1; }
        seen |= 1u << plays[i];
    }
    for (int s = 0; s < c->n; s++) {
        int played = ((s - leader + c->n) % c->n) < np;
        if (popcount32(c->hands[s]) + played != popcount32(c->hands[leader]) + (np > 0)) {
            PyErr_SetString(PyExc_ValueError, "the hands do not hold equal numbers of cards for the trick in progress");
            return -1;
        }
    }
    return 0;
}

static int init_ctx(Ctx *c, PyObject *hands, int trump, int overtake, int count_mask, int max_mask,
                    PyObject *talon, int talon_owner) {
    memset(c, 0, sizeof *c);
    PyObject *fast = PySequence_Fast(hands, "hands must be a sequence of masks");
    if (fast == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n < 2 || n > MAXSEATS) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "2 or 3 hands"); return -1; }
    c->n = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long m = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        if (m > 0xFFFFFFFFull) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "card codes are 0..31"); return -1; }
        c->hands[i] = (uint32_t)m;
    }
    Py_DECREF(fast);
    if (trump < -1 || trump > 3) { PyErr_SetString(PyExc_ValueError, "trump must be -1..3"); return -1; }
    c->trump = trump;
    c->overtake = overtake;
    c->count_mask = count_mask;
    c->max_mask = max_mask;
    c->talon_owner = talon_owner;
    c->ntalon = parse_cards(talon, c->talon, MAXTALON, "talon");
    if (c->ntalon < 0) return -1;
    if (tt_prepare() < 0) { PyErr_NoMemory(); return -1; }
    tt_rules_check(c);
    return 0;
}

/* solve(hands, leader, plays, trump, overtake, count_mask, max_mask, talon, talon_owner, values, node_limit)
   -> (value, {card: value} or None, nodes); value -1 and no card values when the node limit cut the search off */
static PyObject *py_solve(PyObject *self, PyObject *args) {
    PyObject *hands, *plays_obj, *talon;
    int leader, trump, overtake, count_mask, max_mask, talon_owner, want_values;
    long node_limit;
    if (!PyArg_ParseTuple(args, "OiOipiiOppl", &hands, &leader, &plays_obj, &trump, &overtake, &count_mask,
                          &max_mask, &talon, &talon_owner, &want_values, &node_limit))
        return NULL;
    if (node_limit < 0) { PyErr_SetString(PyExc_ValueError, "node limit must be 0 (none) or positive"); return NULL; }
    Ctx c;
    if (init_ctx(&c, hands, trump, overtake, count_mask, max_mask, talon, talon_owner) < 0) return NULL;
    tt_new_generation();
    c.limit = node_limit;
    int plays[MAXSEATS];
    int np = parse_cards(plays_obj, plays, c.n - 1, "plays");
    if (np < 0) return NULL;
    if (leader < 0 || leader >= c.n) { PyErr_SetString(PyExc_ValueError, "leader out of range"); return NULL; }
    if (check_position(&c, leader, plays, np) < 0) return NULL;
    int value;
    PyObject *values = NULL;
    value = solve_exact(&c, leader, plays, np);
    if (c.aborted) return Py_BuildValue("iOl", -1, Py_None, c.nodes);
    if (want_values) {
        values = PyDict_New();
        if (values == NULL) return NULL;
        int seat = (leader + np) % c.n;
        int talon_card = c.ntalon > 0 ? c.talon[0] : -1;
        int led = talon_card >= 0 ? talon_card / 8 : (np > 0 ? plays[0] / 8 : -1);
        uint32_t legal = legal_mask(&c, seat, led, plays, np);
        uint32_t live = talon_card >= 0 ? 1u << talon_card : 0;
        for (int s = 0; s < c.n; s++) live |= c.hands[s];
        for (int i = 0; i < np; i++) live |= 1u << plays[i];
        int found[32];
        /* from the highest card down, so a card equivalent to the one above it copies that card's value */
        while (legal) {
            int card = highbit(legal), v;
            legal &= ~(1u << card);
            uint32_t above = live & suit_mask(card / 8) & ~((2u << card) - 1);
            if (above && (legal_mask(&c, seat, led, plays, np) & (1u << lowbit(above))))
                v = found[lowbit(above)];
            else
                v = value_after(&c, leader, plays, np, card);
            if (c.aborted) { Py_DECREF(values); return Py_BuildValue("iOl", -1, Py_None, c.nodes); }
            found[card] = v;
            PyObject *key = PyLong_FromLong(card), *val = PyLong_FromLong(v);
            if (key == NULL || val == NULL || PyDict_SetItem(values, key, val) < 0) {
                Py_XDECREF(key); Py_XDECREF(val); Py_DECREF(values); return NULL;
            }
            Py_DECREF(key); Py_DECREF(val);
        }
    } else {
        values = Py_None;
        Py_INCREF(values);
    }
    return Py_BuildValue("iNl", value, values, c.nodes);
}

/* solve_batch(hands, leaders, trumps, count_masks, max_masks, out, n_seats, overtake): buffers of uint32
   (rows of n_seats masks), int8 leaders, int8 trumps, uint8 masks; int8 out. Rows start at a trick boundary. */
static PyObject *py_solve_batch(PyObject *self, PyObject *args) {
    Py_buffer hb, lb, tb, cb, mb, ob;
    int n, overtake;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*w*ip", &hb, &lb, &tb, &cb, &mb, &ob, &n, &overtake)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = lb.len;
    if (n < 2 || n > MAXSEATS || hb.len != rows * n * 4 || tb.len != rows || cb.len != rows || mb.len != rows
        || ob.len != rows) {
        PyErr_SetString(PyExc_ValueError, "batch buffers disagree in length");
        goto done;
    }
    if (tt_prepare() < 0) { PyErr_NoMemory(); goto done; }
    const uint32_t *h = (const uint32_t *)hb.buf;
    const int8_t *leaders = (const int8_t *)lb.buf, *trumps = (const int8_t *)tb.buf;
    const uint8_t *counts = (const uint8_t *)cb.buf, *maxes = (const uint8_t *)mb.buf;
    int8_t *out = (int8_t *)ob.buf;
    for (Py_ssize_t r = 0; r < rows; r++) {
        Ctx c;
        memset(&c, 0, sizeof c);
        c.n = n; c.trump = trumps[r]; c.overtake = overtake; c.count_mask = counts[r]; c.max_mask = maxes[r];
        for (int s = 0; s < n; s++) c.hands[s] = h[r * n + s];
        int plays[MAXSEATS];
        if (c.trump < -1 || c.trump > 3 || leaders[r] < 0 || leaders[r] >= n
            || check_position(&c, leaders[r], plays, 0) < 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "batch row %zd: invalid layout", r);
            goto done;
        }
        tt_rules_check(&c);
            out[r] = (int8_t)solve_exact(&c, leaders[r], plays, 0);
        }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&hb); PyBuffer_Release(&lb); PyBuffer_Release(&tb); PyBuffer_Release(&cb);
    PyBuffer_Release(&mb); PyBuffer_Release(&ob);
    return result;
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS, "Double-dummy value of one position (see fairdeal/solver/dds.py)."},
    {"solve_batch", py_solve_batch, METH_VARARGS, "Double-dummy values of many layouts at a trick boundary."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dds", "Preferans double-dummy search.", -1, methods};

PyMODINIT_FUNC PyInit__dds(void) { return PyModule_Create(&module); }
