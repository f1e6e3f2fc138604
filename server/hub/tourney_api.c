/*
 * tourney_api.c - the tournaments' HTTP API (see tourney_api.h).
 *
 * A request is a call: a session (hub_remote_open) of its player, the
 * command's text run on it, and the first message back that carries
 * the command's id, its answer, held until the store has committed what
 * the answer says (its sequence), then rendered in lichess's shape.
 *
 * In a cluster the arena and Swiss directors send a command of an event
 * directed elsewhere on (tourney_forward); a call's session has no
 * connection to send it through, so tourney_api_forward tells every node
 *
 *   Q ORIGIN ID KIND EID ACCT PID NAME\nTEXT
 *
 * (KIND a or s; ACCT 1 an account, 0 a guest) and the node that directs
 * EID runs TEXT as a call of its own, telling every node, once its
 * answer is committed there,
 *
 *   A ORIGIN ID\nANSWER
 *
 * ORIGIN is this process's random name, so that a restarted node takes
 * nothing meant for the one before.
 *
 * What a client costs: each call is one session and one command, under
 * the token's buckets (apitokens.c) or, for a GET, the address's
 * (http_rate_per_s); at most TOURNEY_API_CALLS calls wait on a node at
 * once (its own and those relayed to it; one more is 503 busy), each at
 * most TOURNEY_API_WAIT_MS (then 504), its answer at most
 * TOURNEY_API_ANSWER_MAX bytes (an arena's 2,000 rows are about 1 MB).
 */
#include "hub/tourney_api.h"
#include "hub/tourney_api_internal.h"

#include <assert.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apitoken.h"
#include "hub/apiform.h"
#include "hub/apitokens.h"
#include "hub/arena_director.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "hub/router.h"
#include "hub/swiss_tourney.h"
#include "hub/tourney.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "store/store.h"
#include "strcopy.h"

#define TOURNEY_API_CALLS 256
#define TOURNEY_API_WAIT_MS 5000
/* a relayed call for an event this node never heard of: no director
 * answering by then, it has none (404) */
#define TOURNEY_API_UNKNOWN_MS 2000
#define TOURNEY_API_ANSWER_MAX (4 << 20)
#define TOURNEY_API_TICK_MS 250

#define JSON_TYPE "application/json"
#define NDJSON_TYPE "application/x-ndjson"

struct call {
    struct call *next;
    struct session *s;
    uint64_t later; /* the request (0: a call relayed here) */
    enum tourney_api_kind kind;
    bool swiss;
    int nb;        /* TOURNEY_API_RESULTS: the most lines (0: all) */
    int64_t until; /* its wait's end (hub_now_ms) */
    bool unknown;  /* relayed for an event not known here: 404 at until */
    unsigned long id;
    /* a call relayed here: whose */
    bool relayed;
    char origin[17];
    unsigned long origin_id;
    char *answer; /* the command's answer (malloc'ed) ... */
    uint64_t seq; /* ... once the store has committed this */
};

struct tourney_api {
    struct call *calls;
    size_t n;
    unsigned long next_id;
    char origin[17];
    struct hub_alarm *tick;
    bool armed;
};

static struct tourney_api *A(struct hub *h)
{
    return hub_module_state(h, &hub_tourney_api_module);
}

static void fail_now(struct http_reply *r, int status, const char *words,
                     const char *code)
{
    r->body = tourney_api_error_body(words, code);
    r->status = r->body ? status : 500;
    r->type = r->body ? JSON_TYPE : "text/plain";
    r->len = r->body ? strlen(r->body) : 0;
}

static void arm(struct hub *h)
{
    struct tourney_api *t = A(h);

    if (!t->armed)
        hub_alarm_arm(h, t->tick, hub_now_ms(h) + TOURNEY_API_TICK_MS);
    t->armed = true;
}

/* ---- a call's session ------------------------------------------------- */

static void ops_send(struct session *s, struct msgbuf *b, uint64_t seq)
{
    struct call *c = s->ext;
    json_t *m;
    const char *id;

    if (c->answer || b->len > TOURNEY_API_ANSWER_MAX)
        return;
    /* (only the answer carries the call's id; pushes carry none) */
    m = json_loadb(b->data, b->len, 0, NULL);
    id = json_string_value(json_object_get(m, "id"));
    if (id && !strcmp(id, "api") && (c->answer = malloc(b->len + 1))) {
        memcpy(c->answer, b->data, b->len);
        c->answer[b->len] = '\0';
        c->seq = seq;
        s->hub->env.wake(); /* (answered at the wake: not inside a send) */
    }
    json_decref(m);
}

static int64_t ops_rtt(const struct session *s)
{
    (void)s;
    return 0;
}

static void ops_close(struct session *s, int code, const char *reason)
{
    struct call *c = s->ext;

    (void)code;
    (void)reason;
    c->until = 0; /* (ended at the next tick) */
}

static const struct session_ops call_ops = {ops_send, ops_rtt, ops_close};

bool tourney_api_session(const struct session *s)
{
    return s->ops == &call_ops;
}

/* A new call of player pid (name; account), waiting for `later`; NULL
 * when the node holds as many calls as it may or out of memory. */
static struct call *call_new(struct hub *h, const char *pid, const char *name,
                             bool account, uint64_t later)
{
    struct tourney_api *t = A(h);
    struct player *p;
    struct call *c;

    if (t->n >= TOURNEY_API_CALLS || !(c = calloc(1, sizeof *c)))
        return NULL;
    p = hub_player_get(h, pid, name);
    if (p && account)
        p->account = true;
    if (!p || !(c->s = hub_remote_open(h, &call_ops, c, p))) {
        free(c);
        return NULL;
    }
    c->later = later;
    c->until = hub_now_ms(h) + TOURNEY_API_WAIT_MS;
    c->id = ++t->next_id;
    c->next = t->calls;
    t->calls = c;
    t->n++;
    arm(h);
    return c;
}

static void call_free(struct hub *h, struct call *c)
{
    struct tourney_api *t = A(h);
    struct call **pp = &t->calls;

    while (*pp != c)
        pp = &(*pp)->next;
    *pp = c->next;
    t->n--;
    hub_remote_close(h, c->s, hub_now_ms(h));
    free(c->answer);
    free(c);
}

/* ---- the relay (a cluster) --------------------------------------------- */

static void tell_all(struct hub *h, const char *head, const char *body,
                     size_t n)
{
    size_t k = strlen(head);
    char *text = malloc(k + n + 2);

    if (!text || !h->router.ops->tell_all) {
        free(text);
        return;
    }
    memcpy(text, head, k);
    text[k++] = '\n';
    memcpy(text + k, body, n);
    h->router.ops->tell_all(h->router.ctx, TOURNEY_API_TELL, text, k + n);
    free(text);
}

void tourney_api_forward(struct hub *h, struct session *s, const char *eid,
                         const char *text, size_t len, bool known)
{
    struct call *c = s->ext;
    const struct player *p = s->player;
    char head[160];

    assert(tourney_api_session(s));
    if (c->relayed) { /* (never sent on twice) */
        struct proto_id id = {.kind = 1, .len = 3, .str = "api"};
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy; try again",
                       &id);
        return;
    }
    snprintf(head, sizeof head, "Q %s %lu %c %s %d %s %s", A(h)->origin,
             c->id, c->swiss ? 's' : 'a', eid, p->account ? 1 : 0, p->pid,
             p->name);
    tell_all(h, head, text, len);
    log_info("event=tourney_api_relayed eid=%s known=%d pid=%s", eid,
             known ? 1 : 0, p->pid);
    c->unknown = !known;
    c->until = hub_now_ms(h) +
               (known ? TOURNEY_API_WAIT_MS : TOURNEY_API_UNKNOWN_MS);
}

/* Q: the director of the event runs the command as a call of its own. */
static void run_relayed(struct hub *h, const char *head, const char *text,
                        size_t len)
{
    char origin[17], eid[PROTO_KEY_MAX + 1], pid[PROTO_KEY_MAX + 1],
        name[PROTO_NAME_MAX + 1], kind;
    unsigned long id;
    int account;
    struct tourney_director *d;
    struct tourney_event *e;
    struct call *c;

    if (sscanf(head, "Q %16s %lu %c %32s %d %32s %20s", origin, &id, &kind,
               eid, &account, pid, name) != 7 ||
        !strcmp(origin, A(h)->origin) || !proto_key_valid(pid))
        return;
    d = kind == 's' ? hub_swiss_director(h) : hub_arena_director(h);
    if (!d || !(e = tourney_find(d, eid)) || !tourney_directs(h, e))
        return; /* (not ours: the director answers) */
    if (!(c = call_new(h, pid, name, account == 1, 0))) {
        log_warn("event=tourney_api_dropped why=busy origin=%s", origin);
        return; /* (its node answers 504) */
    }
    c->relayed = true;
    c->swiss = kind == 's';
    strcopy(c->origin, sizeof c->origin, origin);
    c->origin_id = id;
    hub_on_text(h, c->s, text, len, hub_now_ms(h));
}

/* A: an answer to one of this node's relayed calls. */
static void relay_answered(struct hub *h, const char *head, const char *text,
                           size_t len)
{
    char origin[17];
    unsigned long id;

    if (sscanf(head, "A %16s %lu", origin, &id) != 2 ||
        strcmp(origin, A(h)->origin))
        return;
    for (struct call *c = A(h)->calls; c; c = c->next)
        if (c->id == id && !c->relayed && !c->answer) {
            if ((c->answer = malloc(len + 1))) {
                memcpy(c->answer, text, len);
                c->answer[len] = '\0';
                c->seq = 0; /* (committed on the director) */
                h->env.wake();
            }
            return;
        }
}

static void told_all(struct hub *h, const char *payload, size_t len,
                     int64_t now)
{
    const char *nl = memchr(payload, '\n', len);
    char head[160];
    size_t k;

    (void)now;
    if (!nl || (k = (size_t)(nl - payload)) >= sizeof head)
        return;
    memcpy(head, payload, k);
    head[k] = '\0';
    if (head[0] == 'Q')
        run_relayed(h, head, nl + 1, len - k - 1);
    else if (head[0] == 'A')
        relay_answered(h, head, nl + 1, len - k - 1);
}

/* ---- the wake and the tick --------------------------------------------- */

/* Ends the calls answered (and committed) or out of time. */
static void settle(struct hub *h)
{
    uint64_t committed = store_committed(h->store);
    int64_t now = hub_now_ms(h);
    struct call *c = A(h)->calls, *next;

    for (; c; c = next) {
        next = c->next;
        if (c->answer && c->seq <= committed) {
            if (c->relayed) {
                char head[64];
                snprintf(head, sizeof head, "A %s %lu", c->origin,
                         c->origin_id);
                tell_all(h, head, c->answer, strlen(c->answer));
            } else {
                tourney_api_render(h, c->later, c->kind, c->swiss, c->nb,
                                   c->answer);
            }
        } else if (now >= c->until) {
            if (!c->relayed && c->unknown)
                tourney_api_fail(h, c->later, 404,
                                 "no tournament has that id",
                                 "no_such_event");
            else if (!c->relayed)
                tourney_api_fail(h, c->later, 504,
                                 "the tournament's director did not "
                                 "answer in time; try again",
                                 "timeout");
        } else {
            continue;
        }
        call_free(h, c);
    }
}

static void tick(void *arg)
{
    struct hub *h = arg;

    A(h)->armed = false;
    settle(h);
    if (A(h)->calls)
        arm(h);
}

static void wake(struct hub *h)
{
    if (A(h)->calls)
        settle(h);
}

/* ---- the routes -------------------------------------------------------- */

/* A request's call: its kind, its command (JSON). */
#define ROUTE_TEXT_MAX 1024
struct route {
    enum tourney_api_kind kind;
    bool swiss;
    int nb;
    char text[ROUTE_TEXT_MAX];
};

/* Runs the command of route rt for player pid (name; account). */
#define BUSY "the server is busy; try again"

/* Runs the command of route rt for player pid (name; account): false
 * when the node holds as many calls as it may (the caller answers 503). */
static bool start(struct hub *h, const char *pid, const char *name,
                  bool account, struct route *rt, uint64_t later)
{
    struct call *c = call_new(h, pid, name, account, later);

    if (!c)
        return false;
    c->kind = rt->kind;
    c->swiss = rt->swiss;
    c->nb = rt->nb;
    hub_on_text(h, c->s, rt->text, strlen(rt->text), hub_now_ms(h));
    return true;
}

static void authed(struct hub *h, const struct apitoken_who *who, int rc,
                   void *arg, uint64_t later)
{
    struct route *rt = arg;

    (void)rc;
    if (!(who->scopes & apitoken_scope_bit("tournament:write", 16)))
        tourney_api_fail(h, later, 403, "Missing scope: tournament:write",
                         NULL);
    else if (!start(h, who->pid, who->username, true, rt, later))
        tourney_api_fail(h, later, 503, BUSY, "busy");
}

/* The fields of a form that become the command's conditions. */
static const char *conditions(const struct api_form *f, json_t *cmd)
{
    static const struct {
        const char *field, *key;
        long lo, hi;
    } ints[] = {
        {"conditions.minRating.rating", "rating_min", 1, 4000},
        {"conditions.maxRating.rating", "rating_max", 1, 4000},
        {"conditions.nbRatedGame.nb", "rated_games_min", 1, 10000},
    };
    json_t *c = json_object();
    const char *v;
    long x;

    json_object_set_new(cmd, "conditions", c);
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        if (!(v = api_form_get(f, ints[i].field)))
            continue;
        if (!api_form_int(v, ints[i].lo, ints[i].hi, &x))
            return ints[i].field;
        json_object_set_new(c, ints[i].key, json_integer(x));
    }
    if ((v = api_form_get(f, "conditions.bots"))) {
        if (strcmp(v, "true") && strcmp(v, "false"))
            return "conditions.bots: true or false";
        json_object_set_new(c, "bots", json_boolean(!strcmp(v, "true")));
    }
    if ((v = api_form_get(f, "password")) && *v)
        json_object_set_new(c, "password", json_string(v));
    return NULL;
}

/* rated (false only), variant (standard only), description (none). */
static const char *plain_fields(const struct api_form *f)
{
    const char *rated = api_form_get(f, "rated");
    const char *variant = api_form_get(f, "variant");

    if (rated && strcmp(rated, "false"))
        return "rated: this server's tournament games are casual (false)";
    if (variant && strcmp(variant, "standard"))
        return "variant: only standard is played here";
    return NULL;
}

/* The fields both creations take (plain_fields, conditions). */
static const char *const common_fields[] = {
    "rated",
    "variant",
    "password",
    "conditions.minRating.rating",
    "conditions.maxRating.rating",
    "conditions.nbRatedGame.nb",
    "conditions.bots",
};
#define N_COMMON (sizeof common_fields / sizeof *common_fields)

/* NULL when every field of f is one of own's n or a common one; else
 * why ("unknown field 'NAME'"). */
static const char *unknown(const struct api_form *f, const char *const *own,
                           size_t n, char *why, size_t len)
{
    const char *known[API_FORM_FIELDS];

    assert(n + N_COMMON <= API_FORM_FIELDS);
    memcpy(known, own, n * sizeof *own);
    memcpy(known + n, common_fields, sizeof common_fields);
    return api_form_unknown(f, known, n + N_COMMON, why, len);
}

static const char *const arena_fields[] = {
    "name",        "clockTime", "clockIncrement", "minutes",
    "waitMinutes", "startDate", "berserkable",    "streakable",
};

/* clockTime in minutes (lichess's 0, 0.25, 0.5, 0.75, 1, 1.5, 2, ...)
 * as whole seconds into *s: false when it is not. */
static bool minutes_s(const char *v, long *s)
{
    char *end;
    double x;

    if (!v || !*v)
        return false;
    x = strtod(v, &end);
    if (*end || x < 0 || x > 180 || x * 60 != (double)(long)(x * 60))
        return false;
    *s = (long)(x * 60);
    return true;
}

/* Both creations' clock (base + inc seconds, Fischer) and name (f's). */
static void clock_and_name(const struct api_form *f, long base, long inc,
                           json_t *cmd)
{
    const char *name = api_form_get(f, "name");

    json_object_set_new(cmd, "clock",
                        json_pack("{s:s,s:I,s:I}", "type", "fischer",
                                  "initial_s", (json_int_t)base,
                                  "increment_s", (json_int_t)inc));
    if (name)
        json_object_set_new(cmd, "name", json_string(name));
}

/* POST /api/tournament's form as an arena_create: NULL, or why not. */
static const char *arena_create(const struct api_form *f, int64_t wall,
                                json_t *cmd, char *why, size_t len)
{
    const char *v, *bad;
    long base, inc, minutes, wait = 5, at;

    if (unknown(f, arena_fields, sizeof arena_fields / sizeof *arena_fields,
                why, len))
        return why;
    if ((bad = plain_fields(f)) || (bad = conditions(f, cmd)))
        return bad;
    if (!minutes_s(api_form_get(f, "clockTime"), &base))
        return "clockTime: minutes, 0 to 180 in whole seconds";
    if (!api_form_int(api_form_get(f, "clockIncrement"), 0, 180, &inc))
        return "clockIncrement: seconds, 0-180";
    if (!api_form_int(api_form_get(f, "minutes"), 1, 1440, &minutes))
        return "minutes: the duration, 1-1440";
    if ((v = api_form_get(f, "waitMinutes")) &&
        !api_form_int(v, 0, 10080, &wait))
        return "waitMinutes: 0-10080";
    if ((v = api_form_get(f, "startDate"))) {
        if (!api_form_int(v, 0, 9000000000000L, &at) || at < wall ||
            at - wall > 604800000L)
            return "startDate: Unix ms within the next 7 days";
        wait = 0;
        json_object_set_new(cmd, "start_in_s",
                            json_integer((at - wall + 999) / 1000));
    } else {
        json_object_set_new(cmd, "start_in_s", json_integer(wait * 60));
    }
    if ((v = api_form_get(f, "streakable")) && strcmp(v, "true") &&
        strcmp(v, "false"))
        return "streakable: true or false";
    json_object_set_new(cmd, "streaks",
                        json_boolean(!v || !strcmp(v, "true")));
    if ((v = api_form_get(f, "berserkable")) && strcmp(v, "true") &&
        strcmp(v, "false"))
        return "berserkable: true or false";
    json_object_set_new(cmd, "berserk",
                        json_boolean(!v || !strcmp(v, "true")));
    json_object_set_new(cmd, "duration_s", json_integer(minutes * 60));
    clock_and_name(f, base, inc, cmd);
    return NULL;
}

static const char *const swiss_fields[] = {
    "name",     "clock.limit", "clock.increment",
    "nbRounds", "startsAt",    "roundInterval",
};

/* POST /api/swiss/new's form as a swiss_create: NULL, or why not. */
static const char *swiss_create(const struct api_form *f, int64_t wall,
                                json_t *cmd, char *why, size_t len)
{
    const char *v, *bad;
    long base, inc, rounds, interval = 0, at = wall + 600000;

    if (unknown(f, swiss_fields, sizeof swiss_fields / sizeof *swiss_fields,
                why, len))
        return why;
    if ((bad = plain_fields(f)) || (bad = conditions(f, cmd)))
        return bad;
    if (!api_form_int(api_form_get(f, "clock.limit"), 0, 10800, &base) ||
        !api_form_int(api_form_get(f, "clock.increment"), 0, 180, &inc))
        return "clock.limit (0-10800) and clock.increment (0-180) both";
    if (!api_form_int(api_form_get(f, "nbRounds"), 1, 30, &rounds))
        return "nbRounds: 1-30";
    if ((v = api_form_get(f, "roundInterval")) &&
        !api_form_int(v, 0, 3600, &interval))
        return "roundInterval: seconds, 0-3600";
    if ((v = api_form_get(f, "startsAt")) &&
        (!api_form_int(v, 0, 9000000000000L, &at) || at < wall ||
         at - wall > 604800000L))
        return "startsAt: Unix ms within the next 7 days";
    json_object_set_new(cmd, "start_in_s", json_integer((at - wall) / 1000));
    json_object_set_new(cmd, "rounds", json_integer(rounds));
    json_object_set_new(cmd, "interval_s", json_integer(interval));
    clock_and_name(f, base, inc, cmd);
    return NULL;
}

/* A POST on an event: its command's type, or NULL when verb is none. */
static const char *action(const char *verb, bool swiss)
{
    static const char *const verbs[] = {"join", "withdraw", "terminate",
                                        "start"};
    static const char *const arena[] = {"arena_join", "arena_withdraw",
                                        "arena_terminate", "arena_start"};
    static const char *const sw[] = {"swiss_join", "swiss_withdraw",
                                     "swiss_terminate", "swiss_start"};

    for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
        if (!strcmp(verb, verbs[i]))
            return swiss ? sw[i] : arena[i];
    return NULL;
}

/* A POST's command into cmd (its "t" set): NULL, or why not. */
static const char *post_fields(const struct http_request *q, const char *verb,
                               bool swiss, int64_t wall, json_t *cmd,
                               char *why, size_t len)
{
    static const char *const join[] = {"password", "pairMeAsap"};
    struct api_form f;
    const char *bad, *pw;

    if ((bad = api_form_parse(&f, q->body ? q->body : "", q->body_len)))
        return bad;
    if (!verb)
        return swiss ? swiss_create(&f, wall, cmd, why, len)
                     : arena_create(&f, wall, cmd, why, len);
    if (api_form_unknown(&f, join, strcmp(verb, "join") ? 0 : 2, why, len))
        return why;
    if ((pw = api_form_get(&f, "password")) && *pw)
        json_object_set_new(cmd, "password", json_string(pw));
    return NULL;
}

/* The path's parts: base /api/tournament or /api/swiss; id ("": none);
 * verb ("": none). 1: one of this module's paths; 0: another route's
 * (a Swiss's TRF, and any malformed path under /api/swiss/: http.c's
 * 404 no_such_event); -1: under /api/tournament but no such path. */
static int parse_path(const char *path, bool *swiss, char *id, size_t idlen,
                      char *verb, size_t vlen)
{
    const char *rest;
    size_t n;

    if (!strncmp(path, "/api/tournament", 15) &&
        (!path[15] || path[15] == '/'))
        *swiss = false, rest = path + 15;
    else if (!strncmp(path, "/api/swiss/", 11))
        *swiss = true, rest = path + 10;
    else
        return 0;
    id[0] = verb[0] = '\0';
    if (!*rest)
        return 1;
    n = strcspn(++rest, "/");
    if (n == 0 || n >= idlen || memchr(rest, '.', n))
        return *swiss ? 0 : -1;
    memcpy(id, rest, n);
    id[n] = '\0';
    if (!rest[n])
        return 1;
    rest += n + 1;
    if (!*rest || strchr(rest, '/') || strchr(rest, '.') ||
        strlen(rest) >= vlen)
        return *swiss ? 0 : -1;
    if (*swiss && !strcmp(rest, "trf"))
        return 0;
    strcopy(verb, vlen, rest);
    return 1;
}

/* The GET of path (id, verb) as rt: NULL, or (404) why not. */
static const char *get_route(const struct http_request *q, bool swiss,
                             const char *id, const char *verb,
                             struct route *rt, json_t *cmd)
{
    const char *type;

    rt->kind = !id[0]                     ? TOURNEY_API_LIST
               : !verb[0]                 ? TOURNEY_API_EVENT
               : !strcmp(verb, "results") ? TOURNEY_API_RESULTS
               : !strcmp(verb, "games")   ? TOURNEY_API_GAMES
                                          : TOURNEY_API_OK;
    if (rt->kind == TOURNEY_API_OK || (swiss && rt->kind == TOURNEY_API_LIST))
        return "not_found";
    type = rt->kind == TOURNEY_API_LIST ? "arena_list"
           : rt->kind == TOURNEY_API_EVENT
               ? (swiss ? "swiss_watch" : "arena_watch")
               : (swiss ? "swiss_results" : "arena_results");
    if (rt->kind == TOURNEY_API_GAMES)
        rt->nb = TOURNEY_API_GAMES_MAX;
    json_object_set_new(cmd, "t", json_string(type));
    if (rt->kind == TOURNEY_API_EVENT)
        json_object_set_new(cmd, "page", json_integer(1));
    for (size_t i = 0; i < q->nargs; i++) {
        const char *a = q->args[i];
        long nb;
        bool games = rt->kind == TOURNEY_API_GAMES;
        if (strncmp(a, games ? "max=" : "nb=", games ? 4 : 3))
            continue;
        if (!api_form_int(a + (games ? 4 : 3), 1,
                          games ? TOURNEY_API_GAMES_MAX : 100000, &nb))
            return games ? "max: 1-300" : "nb: 1-100000";
        rt->nb = (int)nb;
    }
    return NULL;
}

bool tourney_api_http(struct hub *h, const struct http_request *q,
                      int64_t now, uint64_t later, struct http_reply *r)
{
    char id[PROTO_KEY_MAX + 2], verb[16], why[96], guest[17];
    bool swiss, post = !strcmp(q->method, "POST");
    struct route rt = {0};
    json_t *cmd;
    const char *bad = NULL;

    int ours = parse_path(q->path, &swiss, id, sizeof id, verb, sizeof verb);

    if (!ours)
        return false;
    memset(r, 0, sizeof *r);
    if (ours < 0) {
        fail_now(r, 404, "not_found", NULL);
        return true;
    }
    if (swiss && !strcmp(id, "new") && post) { /* (/new/TEAM: no teams) */
        id[0] = verb[0] = '\0';
    } else if (id[0] && !proto_key_valid(id)) {
        fail_now(r, 404, "no tournament has that id", "no_such_event");
        return true;
    }
    if (!(cmd = json_pack("{s:s}", "id", "api"))) {
        fail_now(r, 500, "out of memory", NULL);
        return true;
    }
    if (id[0])
        json_object_set_new(cmd, "event", json_string(id));
    rt.swiss = swiss;
    if (post) {
        const char *type = verb[0] ? action(verb, swiss)
                           : id[0] ? NULL
                           : swiss ? "swiss_create"
                                   : "arena_create";
        rt.kind = !id[0] ? TOURNEY_API_CREATED : TOURNEY_API_OK;
        if (!type) {
            json_decref(cmd);
            fail_now(r, 404, "not_found", NULL);
            return true;
        }
        json_object_set_new(cmd, "t", json_string(type));
        bad = post_fields(q, verb[0] ? verb : NULL, swiss, hub_wall_ms(h),
                          cmd, why, sizeof why);
    } else if (!strcmp(q->method, "GET")) {
        if ((bad = get_route(q, swiss, id, verb, &rt, cmd))) {
            json_decref(cmd);
            fail_now(r, strcmp(bad, "not_found") ? 400 : 404, bad, NULL);
            return true;
        }
    } else {
        json_decref(cmd);
        fail_now(r, 405, "method_not_allowed", NULL);
        return true;
    }
    if (!bad) {
        size_t n = json_dumpb(cmd, rt.text, sizeof rt.text - 1, JSON_COMPACT);
        if (n == 0 || n >= sizeof rt.text - 1)
            bad = "the request's fields are too long";
        else
            rt.text[n] = '\0';
    }
    json_decref(cmd);
    if (bad) {
        fail_now(r, 400, bad, NULL);
        return true;
    }
    r->status = 0; /* (later) */
    if (post) {
        struct route *arg = malloc(sizeof *arg);
        if (!arg) {
            fail_now(r, 500, "out of memory", NULL);
            return true;
        }
        *arg = rt;
        apitoken_auth(h, q, now, later, 0, NULL, authed, arg, r);
        return true;
    }
    /* a GET is anyone's: a guest's session of its own */
    if (ids_random(guest, 12) < 0) {
        fail_now(r, 500, "no random bytes", NULL);
        return true;
    }
    if (!start(h, guest, "api", false, &rt, later))
        fail_now(r, 503, BUSY, "busy");
    return true;
}

/* ---- the module -------------------------------------------------------- */

static int init(struct hub *h)
{
    struct tourney_api *t = calloc(1, sizeof *t);

    if (!t || ids_random(t->origin, 12) < 0 ||
        !(t->tick = hub_alarm_new(h, tick, h))) {
        free(t);
        return -1;
    }
    hub_module_set_state(h, &hub_tourney_api_module, t);
    return 0;
}

static void module_free(struct hub *h)
{
    struct tourney_api *t = A(h);

    if (!t)
        return;
    while (t->calls) {
        struct call *c = t->calls;
        t->calls = c->next;
        hub_remote_close(h, c->s, hub_now_ms(h));
        free(c->answer);
        free(c);
    }
    hub_alarm_free(h, t->tick);
    free(t);
}

const struct hub_module hub_tourney_api_module = {
    .name = "tourney_api",
    .init = init,
    .free = module_free,
    .wake = wake,
    .tell_tag = TOURNEY_API_TELL,
    .told_all = told_all,
};
