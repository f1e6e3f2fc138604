/*
 * matching.c - maximum-weight matching, Edmonds' blossoms in primal-dual
 * form (see matching.h).
 *
 * Vertices are 0..n-1 and non-trivial blossoms n..2n-1. Edge k has two
 * endpoints, 2k (its u) and 2k+1 (its v); mate[v] and labelend[b] hold
 * remote endpoints, so p ^ 1 is the other end. A stage grows alternating
 * trees from every free vertex over tight edges (slack 0), shrinking odd
 * cycles into blossoms, until it finds an augmenting path; when none is
 * tight it moves the duals by the largest step that keeps them feasible
 * (delta 1 to 4 below). With integer weights every step is an integer.
 */
#include <stdlib.h>
#include <string.h>

#include "matching.h"

struct mw {
    int n, m;
    const struct matching_edge *e;
    wide *w2;       /* m: twice each edge's weight */
    int *endpoint;  /* 2m: the vertex at each endpoint */
    int *nbs, *nb;  /* CSR: remote endpoints of each vertex's edges */
    int *nbv;       /* 2m: the vertex at nb[x] */
    wide *nbw2;     /* 2m: w2 of nb[x]'s edge (nbv and nbw2: a scan of a
                     * vertex's edges reads them in a row) */
    int *mate;      /* n: remote endpoint of the matched edge, or -1 */
    int *label;     /* 2n: 0 free, 1 S, 2 T (4 and 5: scan marks) */
    int *labelend;  /* 2n: the endpoint the label came through */
    int *inblossom; /* n: top-level blossom of each vertex */
    int *parent;    /* 2n: enclosing blossom, or -1 */
    int **childs;   /* 2n: sub-blossoms around the cycle, base first */
    int **endps;    /* 2n: endpoints joining the children */
    int *nchild;    /* 2n */
    int *base;      /* 2n: base vertex, -1 for an unused blossom */
    int *bestedge;  /* 2n: least-slack edge to an S-blossom, or -1 */
    /* 2n: bestedge's slack plus the stage's dual steps so far (dsum),
     * once for a free vertex, twice for an S-blossom: its slack falls
     * that fast, so the key stays put while the duals move */
    wide *bkey, dsum;
    int **bbest; /* 2n: an S-blossom's least-slack edges, or NULL */
    int *nbbest; /* 2n */
    int *unused; /* free blossom numbers, a stack */
    int nunused;
    wide *dual;               /* 2n */
    unsigned char *allow;     /* m: edge known tight this stage */
    int *queue, nq, capq;     /* S-vertices to scan, a stack */
    int *buf;                 /* n: leaves */
    int *tmp_to;              /* 2n: scratch for add_blossom */
    wide *tmp_slack;          /* 2n: the slack of each tmp_to's edge */
    int *tmp_path, *tmp_endp; /* n + 1 each */
    int oom;
};

static inline wide slack(const struct mw *g, int k)
{
    const struct matching_edge *ed = &g->e[k];
    return wide_sub(wide_add(g->dual[ed->u], g->dual[ed->v]), g->w2[k]);
}

static void push(struct mw *g, int v)
{
    if (g->nq == g->capq) {
        int cap = g->capq * 2;
        int *q = realloc(g->queue, (size_t)cap * sizeof *q);
        if (!q) {
            g->oom = 1;
            return;
        }
        g->queue = q;
        g->capq = cap;
    }
    g->queue[g->nq++] = v;
}

/* Writes the vertices of blossom b to out; returns how many. */
static int leaves_into(const struct mw *g, int b, int *out)
{
    if (b < g->n) {
        out[0] = b;
        return 1;
    }
    int k = 0;
    for (int i = 0; i < g->nchild[b]; i++)
        k += leaves_into(g, g->childs[b][i], out + k);
    return k;
}

static int leaves(struct mw *g, int b)
{
    return leaves_into(g, b, g->buf);
}

static void assign_label(struct mw *g, int w, int t, int p)
{
    int b = g->inblossom[w];
    g->label[w] = g->label[b] = t;
    g->labelend[w] = g->labelend[b] = p;
    g->bestedge[w] = g->bestedge[b] = -1;
    if (t == 1) {
        int k = leaves(g, b);
        for (int i = 0; i < k; i++)
            push(g, g->buf[i]);
    } else {
        int base = g->base[b];
        int mp = g->mate[base];
        assign_label(g, g->endpoint[mp], 1, mp ^ 1);
    }
}

/* Traces back from v and w to find a new blossom's base, or -1 when the
 * two trees differ (an augmenting path). */
static int scan_blossom(struct mw *g, int v, int w)
{
    int np = 0, base = -1;
    while (v != -1 || w != -1) {
        int b = g->inblossom[v];
        if (g->label[b] & 4) {
            base = g->base[b];
            break;
        }
        g->tmp_path[np++] = b;
        g->label[b] = 5;
        if (g->labelend[b] == -1) {
            v = -1;
        } else {
            v = g->endpoint[g->labelend[b]];
            b = g->inblossom[v];
            v = g->endpoint[g->labelend[b]];
        }
        if (w != -1) {
            int t = v;
            v = w;
            w = t;
        }
    }
    for (int i = 0; i < np; i++)
        g->label[g->tmp_path[i]] = 1;
    return base;
}

/* Makes edge k, of slack ks, owner's best edge if it is better; owner is
 * a free vertex (times 1) or an S-blossom (times 2). */
static inline void keep_key(struct mw *g, int owner, int k, wide ks,
                            int times)
{
    wide key = wide_add(ks, g->dsum);
    if (times == 2)
        key = wide_add(key, g->dsum);
    if (g->bestedge[owner] == -1 || wide_cmp(key, g->bkey[owner]) < 0) {
        g->bestedge[owner] = k;
        g->bkey[owner] = key;
    }
}

/* Keeps in tmp_to[bj] the least-slack edge to S-blossom bj: edge k, of
 * slack ks, when it is less than the one kept. */
static void keep_least(struct mw *g, int bj, int k, wide ks)
{
    if (g->tmp_to[bj] == -1 || wide_cmp(ks, g->tmp_slack[bj]) < 0) {
        g->tmp_to[bj] = k;
        g->tmp_slack[bj] = ks;
    }
}

/* The least-slack edges from the new blossom b to other S-blossoms. */
static void blossom_best_edges(struct mw *g, int b, int nc)
{
    int *to = g->tmp_to;
    for (int i = 0; i < 2 * g->n; i++)
        to[i] = -1;
    for (int c = 0; c < nc; c++) {
        int bv = g->childs[b][c];
        if (g->bbest[bv]) {
            for (int x = 0; x < g->nbbest[bv]; x++) {
                int k = g->bbest[bv][x], j = g->e[k].v;
                if (g->inblossom[j] == b)
                    j = g->e[k].u;
                int bj = g->inblossom[j];
                if (bj != b && g->label[bj] == 1)
                    keep_least(g, bj, k, slack(g, k));
            }
        } else {
            int cnt = leaves(g, bv);
            for (int i = 0; i < cnt; i++) {
                int v = g->buf[i];
                for (int x = g->nbs[v]; x < g->nbs[v + 1]; x++) {
                    int w = g->nbv[x], bw = g->inblossom[w];
                    if (bw != b && g->label[bw] == 1) /* (slack, in a row) */
                        keep_least(g, bw, g->nb[x] / 2,
                                   wide_sub(wide_add(g->dual[v], g->dual[w]),
                                            g->nbw2[x]));
                }
            }
        }
        free(g->bbest[bv]);
        g->bbest[bv] = NULL;
        g->bestedge[bv] = -1;
    }
    int cnt = 0;
    for (int i = 0; i < 2 * g->n; i++)
        cnt += to[i] != -1;
    g->bbest[b] = malloc((size_t)(cnt ? cnt : 1) * sizeof(int));
    if (!g->bbest[b]) {
        g->oom = 1;
        return;
    }
    g->nbbest[b] = 0;
    g->bestedge[b] = -1;
    for (int i = 0; i < 2 * g->n; i++) {
        if (to[i] == -1)
            continue;
        g->bbest[b][g->nbbest[b]++] = to[i];
        keep_key(g, b, to[i], g->tmp_slack[i], 2);
    }
}

static void add_blossom(struct mw *g, int base, int k)
{
    int v = g->e[k].u, w = g->e[k].v;
    int bb = g->inblossom[base], bv = g->inblossom[v], bw = g->inblossom[w];
    int b = g->unused[--g->nunused];
    int np = 0;
    g->base[b] = base;
    g->parent[b] = -1;
    g->parent[bb] = b;
    while (bv != bb) {
        g->parent[bv] = b;
        g->tmp_path[np] = bv;
        g->tmp_endp[np++] = g->labelend[bv];
        v = g->endpoint[g->labelend[bv]];
        bv = g->inblossom[v];
    }
    int *ch = malloc((size_t)(g->n + 1) * sizeof *ch);
    int *ep = malloc((size_t)(g->n + 1) * sizeof *ep);
    if (!ch || !ep) {
        free(ch);
        free(ep);
        g->oom = 1;
        return;
    }
    int nc = 0;
    ch[nc] = bb;
    for (int i = np - 1; i >= 0; i--)
        ch[++nc] = g->tmp_path[i];
    nc++;
    for (int i = 0; i < np; i++)
        ep[i] = g->tmp_endp[np - 1 - i];
    ep[np] = 2 * k;
    while (bw != bb) {
        g->parent[bw] = b;
        ch[nc] = bw;
        ep[nc++] = g->labelend[bw] ^ 1;
        w = g->endpoint[g->labelend[bw]];
        bw = g->inblossom[w];
    }
    g->childs[b] = ch;
    g->endps[b] = ep;
    g->nchild[b] = nc;
    g->label[b] = 1;
    g->labelend[b] = g->labelend[bb];
    g->dual[b] = wide_zero();
    int cnt = leaves(g, b);
    for (int i = 0; i < cnt; i++) {
        int x = g->buf[i];
        if (g->label[g->inblossom[x]] == 2)
            push(g, x);
        g->inblossom[x] = b;
    }
    blossom_best_edges(g, b, nc);
}

static int cyc(int j, int len)
{
    return ((j % len) + len) % len;
}

static int child_index(const struct mw *g, int b, int t)
{
    int i = 0;
    while (g->childs[b][i] != t)
        i++;
    return i;
}

/* The way round blossom b's cycle from child j to the base that has an
 * even number of edges: forward from j - len when j is odd, else
 * backward from j. trick says which endpoint of each edge comes first. */
static int walk_from(int j, int len, int *jstep, int *trick)
{
    *jstep = j & 1 ? 1 : -1;
    *trick = j & 1 ? 0 : 1;
    return j & 1 ? j - len : j;
}

static void free_blossom(struct mw *g, int b)
{
    g->label[b] = g->labelend[b] = -1;
    free(g->childs[b]);
    free(g->endps[b]);
    free(g->bbest[b]);
    g->childs[b] = g->endps[b] = g->bbest[b] = NULL;
    g->nchild[b] = 0;
    g->base[b] = -1;
    g->bestedge[b] = -1;
    g->unused[g->nunused++] = b;
}

/* Relabels the children of the T-blossom b being expanded mid-stage. */
static void relabel_children(struct mw *g, int b)
{
    int len = g->nchild[b];
    int entry = g->inblossom[g->endpoint[g->labelend[b] ^ 1]];
    int jstep, trick;
    int j = walk_from(child_index(g, b, entry), len, &jstep, &trick);
    int p = g->labelend[b];
    while (j != 0) {
        g->label[g->endpoint[p ^ 1]] = 0;
        int q = g->endps[b][cyc(j - trick, len)];
        g->label[g->endpoint[q ^ trick ^ 1]] = 0;
        assign_label(g, g->endpoint[p ^ 1], 2, p);
        g->allow[q / 2] = 1;
        j += jstep;
        p = g->endps[b][cyc(j - trick, len)] ^ trick;
        g->allow[p / 2] = 1;
        j += jstep;
    }
    int bv = g->childs[b][cyc(j, len)];
    g->label[g->endpoint[p ^ 1]] = g->label[bv] = 2;
    g->labelend[g->endpoint[p ^ 1]] = g->labelend[bv] = p;
    g->bestedge[bv] = -1;
    j += jstep;
    while (g->childs[b][cyc(j, len)] != entry) {
        bv = g->childs[b][cyc(j, len)];
        if (g->label[bv] == 1) {
            j += jstep;
            continue;
        }
        int cnt = leaves(g, bv), found = -1;
        for (int i = 0; i < cnt; i++)
            if (g->label[g->buf[i]] != 0) {
                found = g->buf[i];
                break;
            }
        if (found != -1) {
            g->label[found] = 0;
            g->label[g->endpoint[g->mate[g->base[bv]]]] = 0;
            assign_label(g, found, 2, g->labelend[found]);
        }
        j += jstep;
    }
}

static void expand_blossom(struct mw *g, int b, int endstage)
{
    for (int i = 0; i < g->nchild[b]; i++) {
        int s = g->childs[b][i];
        g->parent[s] = -1;
        if (s < g->n) {
            g->inblossom[s] = s;
        } else if (endstage && wide_is_zero(g->dual[s])) {
            expand_blossom(g, s, endstage);
        } else {
            int cnt = leaves(g, s);
            for (int x = 0; x < cnt; x++)
                g->inblossom[g->buf[x]] = s;
        }
    }
    if (!endstage && g->label[b] == 2)
        relabel_children(g, b);
    free_blossom(g, b);
}

/* Rotates blossom b so that vertex v becomes its base, swapping matched
 * and unmatched edges along the even path. */
static void augment_blossom(struct mw *g, int b, int v)
{
    int t = v;
    while (g->parent[t] != b)
        t = g->parent[t];
    if (t >= g->n)
        augment_blossom(g, t, v);
    int len = g->nchild[b];
    int i = child_index(g, b, t), jstep, trick;
    int j = walk_from(i, len, &jstep, &trick);
    while (j != 0) {
        j += jstep;
        t = g->childs[b][cyc(j, len)];
        int p = g->endps[b][cyc(j - trick, len)] ^ trick;
        if (t >= g->n)
            augment_blossom(g, t, g->endpoint[p]);
        j += jstep;
        t = g->childs[b][cyc(j, len)];
        if (t >= g->n)
            augment_blossom(g, t, g->endpoint[p ^ 1]);
        g->mate[g->endpoint[p]] = p ^ 1;
        g->mate[g->endpoint[p ^ 1]] = p;
    }
    int *rot = g->tmp_path;
    for (int x = 0; x < len; x++)
        rot[x] = g->childs[b][(x + i) % len];
    memcpy(g->childs[b], rot, (size_t)len * sizeof *rot);
    for (int x = 0; x < len; x++)
        rot[x] = g->endps[b][(x + i) % len];
    memcpy(g->endps[b], rot, (size_t)len * sizeof *rot);
    g->base[b] = g->base[g->childs[b][0]];
}

static void augment_matching(struct mw *g, int k)
{
    int ends[2][2] = {{g->e[k].u, 2 * k + 1}, {g->e[k].v, 2 * k}};
    for (int side = 0; side < 2; side++) {
        int s = ends[side][0], p = ends[side][1];
        for (;;) {
            int bs = g->inblossom[s];
            if (bs >= g->n)
                augment_blossom(g, bs, s);
            g->mate[s] = p;
            if (g->labelend[bs] == -1)
                break;
            int t = g->endpoint[g->labelend[bs]];
            int bt = g->inblossom[t];
            s = g->endpoint[g->labelend[bt]];
            int j = g->endpoint[g->labelend[bt] ^ 1];
            if (bt >= g->n)
                augment_blossom(g, bt, j);
            g->mate[j] = g->labelend[bt];
            p = g->labelend[bt] ^ 1;
        }
    }
}

/* Scans S-vertex v's edges: labels, blossoms, or an augmenting path
 * (returns 1 then). */
static int scan_vertex(struct mw *g, int v)
{
    for (int x = g->nbs[v]; x < g->nbs[v + 1]; x++) {
        int p = g->nb[x], k = p / 2, w = g->nbv[x];
        if (g->inblossom[v] == g->inblossom[w])
            continue;
        wide ks = wide_zero();
        if (!g->allow[k]) { /* (slack(g, k), its data in a row) */
            ks = wide_sub(wide_add(g->dual[v], g->dual[w]), g->nbw2[x]);
            if (!wide_neg(ks) && !wide_is_zero(ks))
                goto not_tight;
            g->allow[k] = 1;
        }
        if (g->label[g->inblossom[w]] == 0) {
            assign_label(g, w, 2, p ^ 1);
        } else if (g->label[g->inblossom[w]] == 1) {
            int base = scan_blossom(g, v, w);
            if (base >= 0) {
                add_blossom(g, base, k);
            } else {
                augment_matching(g, k);
                return 1;
            }
        } else if (g->label[w] == 0) {
            g->label[w] = 2;
            g->labelend[w] = p ^ 1;
        }
        continue;
    not_tight:
        if (g->label[g->inblossom[w]] == 1)
            keep_key(g, g->inblossom[v], k, ks, 2);
        else if (g->label[w] == 0)
            keep_key(g, w, k, ks, 1);
    }
    return 0;
}

/* Moves the duals by the largest feasible step and acts on the edge or
 * blossom that limited it. Returns 1 when the matching is optimal. */
static int dual_step(struct mw *g)
{
    int n = g->n, type = 1, dedge = -1, dblossom = -1;
    wide delta = g->dual[0];
    for (int v = 1; v < n; v++)
        if (wide_cmp(g->dual[v], delta) < 0)
            delta = g->dual[v];
    for (int v = 0; v < n; v++) {
        if (g->label[g->inblossom[v]] != 0 || g->bestedge[v] == -1)
            continue;
        wide d = wide_sub(g->bkey[v], g->dsum);
        if (wide_cmp(d, delta) < 0) {
            delta = d;
            type = 2;
            dedge = g->bestedge[v];
        }
    }
    for (int b = 0; b < 2 * n; b++) {
        if (g->parent[b] != -1 || g->label[b] != 1 || g->bestedge[b] == -1)
            continue;
        wide d = wide_sub(wide_sub(g->bkey[b], g->dsum), g->dsum);
        d = wide_half(d);
        if (wide_cmp(d, delta) < 0) {
            delta = d;
            type = 3;
            dedge = g->bestedge[b];
        }
    }
    for (int b = n; b < 2 * n; b++) {
        if (g->base[b] < 0 || g->parent[b] != -1 || g->label[b] != 2)
            continue;
        if (wide_cmp(g->dual[b], delta) < 0) {
            delta = g->dual[b];
            type = 4;
            dblossom = b;
        }
    }
    for (int v = 0; v < n; v++) {
        int l = g->label[g->inblossom[v]];
        if (l == 1)
            g->dual[v] = wide_sub(g->dual[v], delta);
        else if (l == 2)
            g->dual[v] = wide_add(g->dual[v], delta);
    }
    for (int b = n; b < 2 * n; b++) {
        if (g->base[b] < 0 || g->parent[b] != -1)
            continue;
        if (g->label[b] == 1)
            g->dual[b] = wide_add(g->dual[b], delta);
        else if (g->label[b] == 2)
            g->dual[b] = wide_sub(g->dual[b], delta);
    }
    g->dsum = wide_add(g->dsum, delta);
    if (type == 1)
        return 1;
    if (type == 4) {
        expand_blossom(g, dblossom, 0);
        /* inside a T-blossom a vertex's best slack stood still: the keys
         * of those now free start again from their slack */
        for (int v = 0; v < n; v++)
            if (g->label[g->inblossom[v]] == 0 && g->bestedge[v] != -1)
                g->bkey[v] = wide_add(slack(g, g->bestedge[v]), g->dsum);
        return 0;
    }
    g->allow[dedge] = 1;
    int i = g->e[dedge].u;
    if (type == 2 && g->label[g->inblossom[i]] == 0)
        i = g->e[dedge].v;
    push(g, i);
    return 0;
}

/* One stage: returns 1 when it augmented the matching. */
static int stage(struct mw *g)
{
    int n = g->n;
    for (int b = 0; b < 2 * n; b++) {
        g->label[b] = 0;
        g->bestedge[b] = -1;
        if (b >= n) {
            free(g->bbest[b]);
            g->bbest[b] = NULL;
        }
    }
    memset(g->allow, 0, (size_t)g->m);
    g->nq = 0;
    g->dsum = wide_zero();
    for (int v = 0; v < n; v++)
        if (g->mate[v] == -1 && g->label[g->inblossom[v]] == 0)
            assign_label(g, v, 1, -1);
    for (;;) {
        while (g->nq > 0 && !g->oom)
            if (scan_vertex(g, g->queue[--g->nq]))
                return 1;
        if (g->oom || dual_step(g))
            return 0;
    }
}

static void run(struct mw *g)
{
    int n = g->n;
    for (int t = 0; t < n && !g->oom; t++) {
        if (!stage(g))
            break;
        for (int b = n; b < 2 * n; b++)
            if (g->parent[b] == -1 && g->base[b] >= 0 && g->label[b] == 1 &&
                wide_is_zero(g->dual[b]))
                expand_blossom(g, b, 1);
    }
}

static void release(struct mw *g)
{
    if (g->childs)
        for (int b = 0; b < 2 * g->n; b++) {
            free(g->childs[b]);
            free(g->endps[b]);
            free(g->bbest[b]);
        }
    free(g->w2);
    free(g->endpoint);
    free(g->nbs);
    free(g->nb);
    free(g->nbv);
    free(g->nbw2);
    free(g->mate);
    free(g->label);
    free(g->labelend);
    free(g->inblossom);
    free(g->parent);
    free(g->childs);
    free(g->endps);
    free(g->nchild);
    free(g->base);
    free(g->bestedge);
    free(g->bkey);
    free(g->bbest);
    free(g->nbbest);
    free(g->unused);
    free(g->dual);
    free(g->allow);
    free(g->queue);
    free(g->buf);
    free(g->tmp_to);
    free(g->tmp_slack);
    free(g->tmp_path);
    free(g->tmp_endp);
}

static int setup(struct mw *g, int n, const struct matching_edge *e, int m)
{
    size_t n2 = 2 * (size_t)n, mm = m ? (size_t)m : 1;
    g->n = n;
    g->m = m;
    g->e = e;
    g->w2 = malloc(mm * sizeof(wide));
    g->endpoint = malloc(2 * mm * sizeof(int));
    g->nbs = calloc((size_t)n + 1, sizeof(int));
    g->nb = malloc(2 * mm * sizeof(int));
    g->nbv = malloc(2 * mm * sizeof(int));
    g->nbw2 = malloc(2 * mm * sizeof(wide));
    g->mate = malloc((size_t)n * sizeof(int));
    g->label = malloc(n2 * sizeof(int));
    g->labelend = malloc(n2 * sizeof(int));
    g->inblossom = malloc((size_t)n * sizeof(int));
    g->parent = malloc(n2 * sizeof(int));
    g->childs = calloc(n2, sizeof(int *));
    g->endps = calloc(n2, sizeof(int *));
    g->nchild = calloc(n2, sizeof(int));
    g->base = malloc(n2 * sizeof(int));
    g->bestedge = malloc(n2 * sizeof(int));
    g->bkey = malloc(n2 * sizeof(wide));
    g->bbest = calloc(n2, sizeof(int *));
    g->nbbest = calloc(n2, sizeof(int));
    g->unused = malloc((size_t)n * sizeof(int));
    g->dual = malloc(n2 * sizeof(wide));
    g->allow = malloc(mm);
    g->capq = n + 16;
    g->queue = malloc((size_t)g->capq * sizeof(int));
    g->buf = malloc((size_t)n * sizeof(int));
    g->tmp_to = malloc(n2 * sizeof(int));
    g->tmp_slack = malloc(n2 * sizeof(wide));
    g->tmp_path = malloc(((size_t)n + 1) * sizeof(int));
    g->tmp_endp = malloc(((size_t)n + 1) * sizeof(int));
    if (!g->w2 || !g->endpoint || !g->nbs || !g->nb || !g->nbv || !g->nbw2 ||
        !g->mate || !g->label || !g->labelend || !g->inblossom ||
        !g->parent || !g->childs || !g->endps || !g->nchild || !g->base ||
        !g->bestedge || !g->bbest || !g->nbbest || !g->unused || !g->dual ||
        !g->allow || !g->queue || !g->buf || !g->tmp_to || !g->tmp_slack ||
        !g->tmp_path || !g->tmp_endp)
        return -1;
    return 0;
}

static void init(struct mw *g)
{
    int n = g->n, m = g->m;
    wide maxw = wide_zero();
    for (int k = 0; k < m; k++) {
        g->w2[k] = wide_add(g->e[k].w, g->e[k].w);
        g->endpoint[2 * k] = g->e[k].u;
        g->endpoint[2 * k + 1] = g->e[k].v;
        g->nbs[g->e[k].u + 1]++;
        g->nbs[g->e[k].v + 1]++;
        if (wide_cmp(g->e[k].w, maxw) > 0)
            maxw = g->e[k].w;
    }
    for (int v = 0; v < n; v++)
        g->nbs[v + 1] += g->nbs[v];
    int *fill = g->tmp_to; /* 2n >= n + 1 */
    for (int v = 0; v <= n; v++)
        fill[v] = g->nbs[v];
    for (int k = 0; k < m; k++) {
        int x = fill[g->e[k].u]++, y = fill[g->e[k].v]++;
        g->nb[x] = 2 * k + 1;
        g->nbv[x] = g->e[k].v;
        g->nbw2[x] = g->w2[k];
        g->nb[y] = 2 * k;
        g->nbv[y] = g->e[k].u;
        g->nbw2[y] = g->w2[k];
    }
    for (int v = 0; v < n; v++) {
        g->mate[v] = -1;
        g->inblossom[v] = v;
        g->dual[v] = maxw;
    }
    for (int b = 0; b < 2 * n; b++) {
        g->parent[b] = -1;
        g->base[b] = b < n ? b : -1;
        g->labelend[b] = -1;
        if (b >= n)
            g->dual[b] = wide_zero();
    }
    g->nunused = 0;
    for (int b = 2 * n - 1; b >= n; b--)
        g->unused[g->nunused++] = b;
}

static int keep_cert(const struct mw *g, struct matching_cert *c)
{
    size_t n2 = 2 * (size_t)g->n;
    c->n = g->n;
    c->stamp = 0;
    c->dual = malloc(n2 * sizeof *c->dual);
    c->parent = malloc(n2 * sizeof *c->parent);
    c->mark = calloc(n2, sizeof *c->mark);
    if (!c->dual || !c->parent || !c->mark) {
        matching_cert_free(c);
        return -1;
    }
    memcpy(c->dual, g->dual, n2 * sizeof *c->dual);
    memcpy(c->parent, g->parent, n2 * sizeof *c->parent);
    return 0;
}

bool matching_cert_admits(struct matching_cert *c, int u, int v, wide w)
{
    wide s = wide_sub(wide_add(c->dual[u], c->dual[v]), wide_add(w, w));
    c->stamp++;
    for (int b = c->parent[u]; b != -1; b = c->parent[b])
        c->mark[b] = c->stamp;
    for (int b = c->parent[v]; b != -1; b = c->parent[b])
        if (c->mark[b] == c->stamp)
            s = wide_add(s, wide_add(c->dual[b], c->dual[b]));
    return !wide_neg(s);
}

void matching_cert_free(struct matching_cert *c)
{
    free(c->dual);
    free(c->parent);
    free(c->mark);
    c->dual = NULL;
    c->parent = c->mark = NULL;
}

int matching_max_weight(int n, const struct matching_edge *e, int m,
                        int *mate, struct matching_cert *cert)
{
    struct mw g;
    memset(&g, 0, sizeof g);
    if (cert)
        memset(cert, 0, sizeof *cert);
    if (n <= 0)
        return 0;
    if (setup(&g, n, e, m) != 0) {
        release(&g);
        return -1;
    }
    init(&g);
    run(&g);
    int rc = g.oom ? -1 : 0;
    if (!rc && cert)
        rc = keep_cert(&g, cert);
    if (!rc)
        for (int v = 0; v < n; v++)
            mate[v] = g.mate[v] >= 0 ? g.endpoint[g.mate[v]] : -1;
    release(&g);
    return rc;
}

struct lazy_edges {
    struct matching_edge *e;
    int m;
    size_t cap;
    unsigned char *in; /* n * n: pair u < v taken */
    int n;
};

static int lazy_take(struct lazy_edges *E, int u, int v, wide w)
{
    if ((size_t)E->m == E->cap) {
        size_t cap = E->cap ? 2 * E->cap : 1024;
        struct matching_edge *e = realloc(E->e, cap * sizeof *e);
        if (!e)
            return -1;
        E->e = e;
        E->cap = cap;
    }
    E->e[E->m++] = (struct matching_edge){u, v, w};
    E->in[(size_t)u * (size_t)E->n + (size_t)v] = 1;
    return 0;
}

/* Adds the allowed pairs not taken yet that pick says to (every one when
 * cert is NULL, else those the certificate does not admit); returns how
 * many, or -1 when out of memory. */
static int lazy_add(const struct matching_lazy *g, struct lazy_edges *E,
                    struct matching_cert *cert, bool first)
{
    int added = 0;
    for (int u = 0; u < g->n; u++)
        for (int v = u + 1; v < g->n; v++) {
            if (E->in[(size_t)u * (size_t)E->n + (size_t)v] ||
                (first && !g->first(g->ctx, u, v)) ||
                !g->allowed(g->ctx, u, v))
                continue;
            wide w = g->weight(g->ctx, u, v);
            if (cert && matching_cert_admits(cert, u, v, w))
                continue;
            if (lazy_take(E, u, v, w))
                return -1;
            added++;
        }
    return added;
}

int matching_max_weight_lazy(const struct matching_lazy *g, int *mate)
{
    int rc = -1;
    struct lazy_edges E = {.n = g->n};
    E.in = calloc((size_t)g->n * (size_t)g->n + 1, 1);
    if (!E.in || lazy_add(g, &E, NULL, true) < 0)
        goto out;
    for (int round = 0;; round++) {
        struct matching_cert cert;
        if (matching_max_weight(g->n, E.e, E.m, mate, &cert))
            goto out;
        int added = lazy_add(g, &E, &cert, false);
        matching_cert_free(&cert);
        if (added < 0)
            goto out;
        if (added == 0)
            break;
        if (round == MATCHING_LAZY_ROUNDS && lazy_add(g, &E, NULL, false) < 0)
            goto out;
    }
    rc = 0;
out:
    free(E.e);
    free(E.in);
    return rc;
}
