/*
 * test_seeks.c - the lobby's scripts (server/cluster/lua/seek_place.lua,
 * seek_cancel.lua, seek_read.lua)
 * through server/cluster/redis.c against a real redis-server:
 * docs/PROTOCOL.md's pairing rules one by one, the cap per address, a
 * dead node's seeks, accept's read and take, then 1,000 seeks placed at
 * once through three connections, each seeker paired at most once,
 * every pair compatible, and no two compatible seeks left waiting. Run
 * again on a Redis Cluster of one (seeks_cluster): each script keeps to
 * one hash slot. And the challenges' script (challenge.lua, in the same
 * {lobby} slot): the caps per player across nodes, one close of each,
 * a challenge's record, a dead node's challenges.
 */
#include <check.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "cluster/redis.h"
#include "redis_scripts.h"
#include "redisproc.h"
#include "redisfix.h"
#include "redissync.h"

/* A seek as the tests describe it. */
struct seek {
    char sid[16], pid[16], node[8];
    const char *clock; /* canonical: f300+0, m60, ... */
    const char *color; /* white, black, random */
    int rated, rating;
    int has_range, lo, hi;
    int coin;
    const char *addr; /* its address (ARGV[13]) and ... */
    const char *max;  /* ... max_seeks_per_ip (ARGV[14]); NULL: none */
};

/* The lobby's keys (seek_place.lua): seek_place's six, and the five of
 * seek_cancel. */
static const char *const place_keys[6] = {
    "lobby:{lobby}:seeks", "lobby:{lobby}:queue",   "lobby:{lobby}:all",
    "lobby:{lobby}:seq",   "lobby:{lobby}:seekers", "lobby:{lobby}:addrs"};
static const char *const seek_keys[5] = {
    "lobby:{lobby}:seeks", "lobby:{lobby}:queue", "lobby:{lobby}:all",
    "lobby:{lobby}:seekers", "lobby:{lobby}:addrs"};

/* seek_place's arguments for s (into the buffers given). */
static void place_args(const struct seek *s, char nums[4][16],
                       const char *args[16])
{
    snprintf(nums[0], 16, "%d", s->rating);
    snprintf(nums[1], 16, "%d", s->lo);
    snprintf(nums[2], 16, "%d", s->hi);
    snprintf(nums[3], 16, "%d", s->coin);
    args[0] = s->clock;
    args[1] = s->sid;
    args[2] = s->pid;
    args[3] = s->node;
    args[4] = s->color;
    args[5] = s->rated ? "1" : "0";
    args[6] = s->rated ? nums[0] : "";
    args[7] = s->has_range ? nums[1] : "";
    args[8] = s->has_range ? nums[2] : "";
    args[9] = nums[3];
    args[10] = "1700000000000";
    args[11] = "";
    args[12] = "0";
    args[13] = s->addr ? s->addr : "";
    args[14] = s->max ? s->max : "";
    args[15] = "0";
}

/* Places s and returns the script's answer as text (caller frees). */
static char *place(const struct seek *s)
{
    char nums[4][16];
    const char *args[16];

    place_args(s, nums, args);
    return redissync_eval(loop, rd, REDIS_LUA_SEEK_PLACE, 6, place_keys,
                          s->addr ? 16 : 11, args);
}

#define PLACE(want, ...)                                                   \
    do {                                                                   \
        struct seek s_ = {__VA_ARGS__};                                    \
        char *got_;                                                        \
        if (!s_.node[0])                                                   \
            strcpy(s_.node, "n0");                                         \
        if (!s_.clock)                                                     \
            s_.clock = "f300+0";                                           \
        if (!s_.color)                                                     \
            s_.color = "random";                                           \
        got_ = place(&s_);                                                 \
        ck_assert_msg(!strcmp(got_, want), "%s: %s, not %s", s_.pid, got_, \
                      want);                                               \
        free(got_);                                                        \
    } while (0)

static void expect_cmd(const char *want, const char *format, const char *a)
{
    char *got = redissync_command(loop, admin, format, a);
    ck_assert_msg(!strcmp(got, want), "%s %s: %s, not %s", format, a, got,
                  want);
    free(got);
}

/* Whether seek sid is open; player pid's open seek ("nil" none). */
#define OPEN(want, sid) \
    expect_cmd(want, "HEXISTS lobby:{lobby}:seeks %s", sid)
#define SEEKER(want, pid) \
    expect_cmd(want, "HGET lobby:{lobby}:seekers %s", pid)

/* The seeks queued for clock. */
static int queued(const char *clock)
{
    char lo[40], hi[40], *got;
    int n;

    snprintf(lo, sizeof lo, "[%s ", clock);
    snprintf(hi, sizeof hi, "(%s!", clock);
    got = redissync_command(loop, admin,
                            "ZLEXCOUNT lobby:{lobby}:queue %s %s", lo, hi);
    n = atoi(got);
    free(got);
    return n;
}

static int cancel(const char *pid, const char *sid)
{
    char *got;
    const char *args[3] = {"player", pid, sid};
    int n;

    got = redissync_eval(loop, rd, REDIS_LUA_SEEK_CANCEL, 5, seek_keys, 3,
                         args);
    n = atoi(got);
    ck_assert_msg(!strcmp(got, "0") || !strcmp(got, "1"), "%s", got);
    free(got);
    return n;
}

START_TEST(test_colours)
{
    PLACE("[waiting,s1]", .sid = "s1", .pid = "A", .color = "white");
    PLACE("[waiting,s2]", .sid = "s2", .pid = "B", .color = "white");
    /* black fits white: the oldest, A */
    PLACE("[paired,s1,A,n0,black,,1700000000000]", .sid = "s3", .pid = "C",
          .color = "black", .node = "n1");
    /* random fits white: B, and takes black */
    PLACE("[paired,s2,B,n0,black,,1700000000000]", .sid = "s4", .pid = "D");
    ck_assert_int_eq(queued("f300+0"), 0);
    /* both random: the coin decides the new seeker's colour */
    PLACE("[waiting,s5]", .sid = "s5", .pid = "E");
    PLACE("[paired,s5,E,n0,white,,1700000000000]", .sid = "s6", .pid = "F",
          .coin = 0);
    PLACE("[waiting,s7]", .sid = "s7", .pid = "E");
    PLACE("[paired,s7,E,n0,black,,1700000000000]", .sid = "s8", .pid = "F",
          .coin = 1);
    /* random with black waiting: white */
    PLACE("[waiting,s9]", .sid = "s9", .pid = "G", .color = "black");
    PLACE("[paired,s9,G,n0,white,,1700000000000]", .sid = "s10", .pid = "H");
    /* a paired seek is gone, and so is its player's open seek */
    OPEN("0", "s9");
    SEEKER("nil", "G");
    SEEKER("nil", "H");
}
END_TEST

START_TEST(test_clock_and_rated)
{
    PLACE("[waiting,s1]", .sid = "s1", .pid = "A");
    PLACE("[waiting,s2]", .sid = "s2", .pid = "B", .clock = "f300+2");
    PLACE("[waiting,s3]", .sid = "s3", .pid = "C", .clock = "m60");
    PLACE("[waiting,s4]", .sid = "s4", .pid = "D", .rated = 1,
          .rating = 1500);
    PLACE("[paired,s4,D,n0,black,1500,1700000000000]", .sid = "s5",
          .pid = "E", .rated = 1, .rating = 1200, .coin = 1);
    PLACE("[paired,s1,A,n0,white,,1700000000000]", .sid = "s6", .pid = "F");
    PLACE("[paired,s3,C,n0,white,,1700000000000]", .sid = "s7", .pid = "G",
          .clock = "m60");
}
END_TEST

START_TEST(test_ranges)
{
    PLACE("[waiting,s1]", .sid = "s1", .pid = "A", .rated = 1, .rating = 1500,
          .has_range = 1, .lo = 1400, .hi = 1600);
    /* A's range refuses 1601 */
    PLACE("[waiting,s2]", .sid = "s2", .pid = "B", .rated = 1,
          .rating = 1601);
    /* C's range refuses A's 1500 (B's 1601 is fine, but B's open: C
     * pairs with B, the only compatible one) */
    PLACE("[paired,s2,B,n0,white,1601,1700000000000]", .sid = "s3",
          .pid = "C", .rated = 1, .rating = 1550, .has_range = 1, .lo = 1501,
          .hi = 1700);
    /* bounds included, both ways */
    PLACE("[paired,s1,A,n0,white,1500,1700000000000]", .sid = "s4",
          .pid = "D", .rated = 1, .rating = 1600, .has_range = 1, .lo = 1500,
          .hi = 1500);
    /* a casual seek with a range is refused, as a range lo > hi */
    {
        struct seek s = {.sid = "s5",
                         .pid = "E",
                         .node = "n0",
                         .clock = "f300+0",
                         .color = "random",
                         .has_range = 1,
                         .lo = 1,
                         .hi = 2};
        char *got = place(&s);
        ck_assert_str_eq(got, "!ERR seek_place: bad arguments");
        free(got);
        s.rated = 1;
        s.lo = 3;
        got = place(&s);
        ck_assert_str_eq(got, "!ERR seek_place: bad arguments");
        free(got);
    }
}
END_TEST

START_TEST(test_one_seek_per_player)
{
    PLACE("[waiting,s1]", .sid = "s1", .pid = "A", .color = "white");
    /* A's new seek replaces the old one, and never pairs with it */
    PLACE("[waiting,s2]", .sid = "s2", .pid = "A", .color = "black",
          .clock = "m60");
    ck_assert_int_eq(queued("f300+0"), 0);
    OPEN("0", "s1");
    SEEKER("s2", "A");
    PLACE("[waiting,s3]", .sid = "s3", .pid = "A", .clock = "m60");
    ck_assert_int_eq(queued("m60"), 1);
    /* cancel: only the named seek, or whichever is open */
    ck_assert_int_eq(cancel("A", "s2"), 0);
    ck_assert_int_eq(cancel("A", "s3"), 1);
    ck_assert_int_eq(cancel("A", ""), 0);
    ck_assert_int_eq(queued("m60"), 0);
    OPEN("0", "s3");
    PLACE("[waiting,s4]", .sid = "s4", .pid = "A");
    ck_assert_int_eq(cancel("A", ""), 1);
    SEEKER("nil", "A");
    expect_cmd("[]", "ZRANGE %s 0 -1", "lobby:{lobby}:all");
    /* a stale entry (its seek gone) is skipped and dropped */
    PLACE("[waiting,s5]", .sid = "s5", .pid = "B");
    expect_cmd("1", "HDEL lobby:{lobby}:seeks %s", "s5");
    PLACE("[waiting,s6]", .sid = "s6", .pid = "C", .color = "white");
    ck_assert_int_eq(queued("f300+0"), 1);
    expect_cmd("[s6]", "ZRANGE %s 0 -1", "lobby:{lobby}:all");
}
END_TEST

/* max_seeks_per_ip: an address's players hold at most that many open
 * seeks (its entry in lobby:{lobby}:addrs); a replacement of the player's own is
 * not one more; a cancelled, paired or vanished seek frees its place. */
START_TEST(test_seeks_per_address)
{
    PLACE("[waiting,s1]", .sid = "s1", .pid = "A", .color = "white",
          .addr = "10.0.0.1", .max = "2");
    PLACE("[waiting,s2]", .sid = "s2", .pid = "B", .color = "white",
          .addr = "10.0.0.1", .max = "2");
    PLACE("[too_many]", .sid = "s3", .pid = "C", .color = "white",
          .addr = "10.0.0.1", .max = "2");
    OPEN("0", "s3");
    SEEKER("nil", "C");
    /* B's replacement; another address */
    PLACE("[waiting,s4]", .sid = "s4", .pid = "B", .color = "white",
          .addr = "10.0.0.1", .max = "2");
    PLACE("[waiting,s5]", .sid = "s5", .pid = "D", .color = "white",
          .addr = "10.0.0.2", .max = "2");
    expect_cmd("s1 s4", "HGET lobby:{lobby}:addrs %s", "10.0.0.1");
    /* cancelled: its place is free */
    ck_assert_int_eq(cancel("A", "s1"), 1);
    PLACE("[waiting,s6]", .sid = "s6", .pid = "C", .color = "white",
          .addr = "10.0.0.1", .max = "2");
    /* paired: gone from the set */
    PLACE("[paired,s4,B,n0,black,,1700000000000]", .sid = "s7", .pid = "E",
          .color = "black", .addr = "10.0.0.3", .max = "2");
    expect_cmd("s6", "HGET lobby:{lobby}:addrs %s", "10.0.0.1");
    /* a vanished seek (its record gone) is not counted */
    expect_cmd("1", "HDEL lobby:{lobby}:seeks %s", "s6");
    PLACE("[waiting,s8]", .sid = "s8", .pid = "F", .color = "white",
          .addr = "10.0.0.1", .max = "1");
}
END_TEST

/* The sweep of a dead node removes its open seeks (seek_cancel.lua):
 * nobody is there to play them; the others stay. */
START_TEST(test_dead_node_seeks)
{
    char *got;

    PLACE("[waiting,s1]", .sid = "s1", .pid = "A", .node = "n1");
    PLACE("[waiting,s2]", .sid = "s2", .pid = "B", .node = "n2",
          .clock = "m60", .addr = "10.0.0.1", .max = "5");
    PLACE("[waiting,s3]", .sid = "s3", .pid = "C", .node = "n2",
          .clock = "f180+0", .addr = "10.0.0.1", .max = "5");
    /* B's new seek replaces s2 */
    PLACE("[waiting,s4]", .sid = "s4", .pid = "B", .node = "n2",
          .clock = "f600+0");
    /* D pairs with A's */
    PLACE("[paired,s1,A,n1,white,,1700000000000]", .sid = "s5", .pid = "D",
          .node = "n3");
    PLACE("[waiting,s6]", .sid = "s6", .pid = "E", .node = "n1",
          .clock = "m60");
    /* n2 dies with s3 and s4 open */
    got = redissync_eval(loop, rd, REDIS_LUA_SEEK_CANCEL, 5, seek_keys, 2,
                         (const char *[]){"node", "n2"});
    ck_assert_str_eq(got, "2");
    free(got);
    OPEN("0", "s3");
    OPEN("0", "s4");
    ck_assert_int_eq(queued("f600+0"), 0);
    ck_assert_int_eq(queued("f180+0"), 0);
    SEEKER("nil", "B");
    SEEKER("nil", "C");
    expect_cmd("0", "HEXISTS lobby:{lobby}:addrs %s", "10.0.0.1");
    expect_cmd("[s6]", "ZRANGE %s 0 -1", "lobby:{lobby}:all");
    SEEKER("s6", "E");
    /* F's seek on that clock waits: nothing left to pair with */
    PLACE("[waiting,s7]", .sid = "s7", .pid = "F", .clock = "f600+0");
    got = redissync_eval(loop, rd, REDIS_LUA_SEEK_CANCEL, 5, seek_keys, 2,
                         (const char *[]){"node", "n2"});
    ck_assert_str_eq(got, "0");
    free(got);
}
END_TEST

/* accept's read and take of one seek (seek_read.lua, seek_cancel.lua). */
START_TEST(test_read_and_take)
{
    char *got;

    PLACE("[waiting,s1]", .sid = "s1", .pid = "A", .node = "n1", .rated = 1,
          .rating = 1500, .has_range = 1, .lo = 1400, .hi = 1600,
          .addr = "10.0.0.9", .max = "3");
    got = redissync_eval(loop, rd, REDIS_LUA_SEEK_READ, 1, seek_keys, 1,
                         (const char *[]){"s1"});
    ck_assert_str_eq(got, "[A,,random,1,1500,0,1400,1600,f300+0,n1]");
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_SEEK_CANCEL, 5, seek_keys, 2,
                         (const char *[]){"seek", "s1"});
    ck_assert_str_eq(got, "1");
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_SEEK_CANCEL, 5, seek_keys, 2,
                         (const char *[]){"seek", "s1"});
    ck_assert_str_eq(got, "0"); /* of two takers, one */
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_SEEK_READ, 1, seek_keys, 1,
                         (const char *[]){"s1"});
    ck_assert_str_eq(got, "[nil,nil,nil,nil,nil,nil,nil,nil,nil,nil]");
    free(got);
    SEEKER("nil", "A");
    ck_assert_int_eq(queued("f300+0"), 0);
    expect_cmd("0", "HEXISTS lobby:{lobby}:addrs %s", "10.0.0.9");
}
END_TEST

/* ---- 1,000 seeks at once through three connections ------------------ */

#define SEEKERS 1000
#define CONNS 3

static const char *const clocks[] = {"f180+0", "f300+3", "m60"};
static const char *const colors[] = {"white", "black", "random"};

struct result {
    char *text;
    int partner; /* the seeker it paired with, or -1 */
    char colour[8];
};

static struct seek seekers[SEEKERS];
static struct result results[SEEKERS];
static int answered;

static void placed_cb(void *arg, const struct bus_value *reply,
                      const char *err)
{
    struct result *r = arg;

    r->text = redissync_text(reply, err);
    answered++;
}

/* PROTOCOL.md's rule, written again here from the text. */
static bool compatible(const struct seek *a, const struct seek *b)
{
    if (strcmp(a->clock, b->clock) || !strcmp(a->pid, b->pid) ||
        a->rated != b->rated)
        return false;
    if (strcmp(a->color, "random") && strcmp(b->color, "random") &&
        !strcmp(a->color, b->color))
        return false;
    if (a->rated && a->has_range && (b->rating < a->lo || b->rating > a->hi))
        return false;
    if (a->rated && b->has_range && (a->rating < b->lo || a->rating > b->hi))
        return false;
    return true;
}

/* The colour the rules give placer p against the waiting seek w. */
static const char *colour_of(const struct seek *p, const struct seek *w)
{
    if (!strcmp(p->color, "white") || !strcmp(w->color, "black"))
        return "white";
    if (!strcmp(p->color, "black") || !strcmp(w->color, "white"))
        return "black";
    return p->coin ? "black" : "white";
}

/* challenge.lua's keys, and a call of it whose answer is want. */
static const char *const challenge_keys[3] = {"lobby:{lobby}:challenges",
                                              "lobby:{lobby}:chcounts",
                                              "lobby:{lobby}:chby"};
#define CHAL(want, ...)                                                     \
    do {                                                                    \
        const char *a_[] = {__VA_ARGS__};                                   \
        char *g_ = redissync_eval(loop, rd, REDIS_LUA_CHALLENGE, 3,         \
                                  challenge_keys,                           \
                                  (int)(sizeof a_ / sizeof *a_), a_);       \
        ck_assert_msg(!strcmp(g_, want), "%s %s: %s, not %s", a_[0], a_[1], \
                      g_, want);                                            \
        free(g_);                                                           \
    } while (0)
#define COUNT(want, field) \
    expect_cmd(want, "HGET lobby:{lobby}:chcounts %s", field)

START_TEST(test_challenges)
{
    /* the caps (2 out, 2 in), whichever node opens */
    CHAL("0", "open", "c1", "A", "B", "n1", "2", "2", "rec\none");
    CHAL("0", "open", "c2", "A", "C", "n2", "2", "2", "rec two");
    CHAL("1", "open", "c3", "A", "D", "n3", "2", "2", "rec three");
    CHAL("0", "open", "c4", "E", "B", "n2", "2", "2", "rec four");
    CHAL("2", "open", "c5", "F", "B", "n1", "2", "2", "rec five");
    COUNT("2", "o:A");
    COUNT("2", "i:B");
    /* each player's, both ways, whichever node holds them */
    CHAL("[rec\none,rec two]", "list", "A");
    CHAL("[rec\none,rec four]", "list", "B");
    CHAL("[]", "list", "D");
    /* its record, for any node */
    CHAL("rec\none", "read", "c1");
    CHAL("0", "read", "c3");
    /* closed once: of two closers, the first */
    CHAL("1", "close", "c1");
    CHAL("0", "close", "c1");
    CHAL("0", "read", "c1");
    CHAL("[rec two]", "list", "A");
    CHAL("[rec four]", "list", "B");
    COUNT("1", "o:A");
    CHAL("0", "open", "c6", "A", "D", "n1", "2", "2", "rec six");
    /* its record updated (its lapse re-armed on its home node): read and
     * listed so, still its home node's; none pending, nothing written */
    CHAL("1", "update", "c6", "rec\nsix later");
    CHAL("rec\nsix later", "read", "c6");
    CHAL("0", "update", "c1", "rec gone");
    CHAL("0", "read", "c1");
    CHAL("1", "update", "c6", "rec six");
    /* a dead node's: those whose lapse had passed by now (the 14th
     * field of the record's first line, Unix ms; 0: none armed) closed,
     * answered E; the others' records going to the heir, answered K */
    CHAL("0", "open", "c7", "G", "H", "n2", "2", "2",
         "c7 G H 1 1 0 0 0 180 2 0 2 0 1000\nG\nH");
    CHAL("0", "open", "c8", "G", "I", "n2", "2", "2",
         "c8 G I 1 1 0 0 0 180 2 0 2 0 3000\nG\nI");
    CHAL("[K rec two,K rec four,E c7 G H,K c8 G I 1 1 0 0 0 180 2 0 2 0 "
         "3000\nG\nI]",
         "node", "n2", "n3", "2000");
    CHAL("[]", "node", "n2", "n3", "2000");
    COUNT("1", "o:G");
    COUNT("nil", "i:H");
    expect_cmd("nil", "HGET lobby:{lobby}:chby %s", "H");
    CHAL("[c8 G I 1 1 0 0 0 180 2 0 2 0 3000\nG\nI]", "list", "G");
    /* the heir's own death, later: c8's lapse has passed */
    CHAL("[K rec two,K rec four,E c8 G I]", "node", "n3", "n1", "9000");
    COUNT("nil", "o:G");
    /* the updated one (c6) is still its home node's, n1, as are c2 and
     * c4 now */
    CHAL("[K rec two,K rec four,K rec six]", "node", "n1", "n2", "9000");
    COUNT("2", "o:A");
    CHAL("rec six", "read", "c6");
    CHAL("[rec two,rec six]", "list", "A");
    CHAL("[rec four]", "list", "B");
}
END_TEST

START_TEST(test_thousand_at_once)
{
    struct redis *conns[CONNS];
    unsigned long long x = 0x9e3779b97f4a7c15ull; /* a fixed LCG seed */
    bool never = false;
    int pairs = 0, waiting = 0, in_redis = 0;
    static int times_paired[SEEKERS];

    answered = 0;
    memset(times_paired, 0, sizeof times_paired);
    for (int c = 0; c < CONNS; c++)
        conns[c] = open_redis();
    for (int i = 0; i < SEEKERS; i++) {
        struct seek *s = &seekers[i];
        unsigned v;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        v = (unsigned)(x >> 33);
        memset(s, 0, sizeof *s);
        snprintf(s->sid, sizeof s->sid, "s%04d", i);
        snprintf(s->pid, sizeof s->pid, "p%04d", i);
        snprintf(s->node, sizeof s->node, "n%d", i % CONNS);
        s->clock = clocks[v % 3];
        s->color = colors[(v / 3) % 3];
        s->rated = (v / 9) % 2;
        s->coin = (v / 18) % 2;
        if (s->rated) {
            s->rating = 1000 + (int)((v / 36) % 1000);
            s->has_range = (v / 36000) % 5 < 2;
            s->lo = s->rating - 50 - (int)((v / 72000) % 300);
            s->hi = s->rating + 50 + (int)((v / 720) % 300);
        }
    }
    /* all at once: pipelined on three connections, interleaved */
    for (int i = 0; i < SEEKERS; i++) {
        char nums[4][16];
        const char *args[16];
        place_args(&seekers[i], nums, args);
        results[i].text = NULL;
        results[i].partner = -1;
        ck_assert_int_eq(redis_eval(conns[i % CONNS], REDIS_LUA_SEEK_PLACE,
                                    placed_cb, &results[i], 6, place_keys, 11,
                                    args),
                         0);
    }
    for (int i = 0; i < 3000 && answered < SEEKERS; i++)
        redissync_run_until(loop, &never, 0.01);
    ck_assert_int_eq(answered, SEEKERS);

    for (int i = 0; i < SEEKERS; i++) {
        const char *t = results[i].text;
        char osid[16], opid[16], onode[8], colour[8];
        int j;
        if (!strncmp(t, "[waiting,", 9)) {
            char want[32];
            snprintf(want, sizeof want, "[waiting,%.15s]", seekers[i].sid);
            ck_assert_str_eq(t, want);
            continue;
        }
        ck_assert_msg(sscanf(t, "[paired,s%*d,%15[^,],%7[^,],%7[^,],", opid,
                             onode, colour) == 3,
                      "%d: %s", i, t);
        ck_assert(sscanf(t, "[paired,%15[^,]", osid) == 1);
        j = atoi(opid + 1);
        ck_assert_str_eq(seekers[j].sid, osid);
        ck_assert_str_eq(seekers[j].node, onode);
        /* the partner waited: it was placed, not paired, itself */
        ck_assert_msg(!strncmp(results[j].text, "[waiting,", 9), "%d: %s", j,
                      results[j].text);
        ck_assert_msg(compatible(&seekers[i], &seekers[j]), "%d and %d", i,
                      j);
        ck_assert_str_eq(colour, colour_of(&seekers[i], &seekers[j]));
        results[i].partner = j;
        times_paired[i]++;
        times_paired[j]++;
        pairs++;
    }
    /* exactly once: each seeker in at most one pair, and the rest still
     * waiting in Redis, where no two of them are compatible */
    for (int i = 0; i < SEEKERS; i++) {
        char *got;
        ck_assert_msg(times_paired[i] <= 1, "%s paired %d times",
                      seekers[i].pid, times_paired[i]);
        got = redissync_command(loop, admin, "HGET lobby:{lobby}:seekers %s",
                                seekers[i].pid);
        if (times_paired[i] == 0) {
            waiting++;
            ck_assert_str_eq(got, seekers[i].sid);
            for (int j = 0; j < i; j++)
                ck_assert_msg(times_paired[j] == 1 ||
                                  !compatible(&seekers[i], &seekers[j]),
                              "%d and %d both left waiting", j, i);
        } else {
            ck_assert_str_eq(got, "nil");
        }
        free(got);
    }
    for (size_t c = 0; c < 3; c++)
        in_redis += queued(clocks[c]);
    ck_assert_int_eq(in_redis, waiting);
    ck_assert_int_eq(2 * pairs + waiting, SEEKERS);
    ck_assert_msg(pairs >= 300, "only %d pairs: the mix pairs too little",
                  pairs);
    for (int i = 0; i < SEEKERS; i++)
        free(results[i].text);
    for (int c = 0; c < CONNS; c++)
        redis_free(conns[c]);
}
END_TEST

static Suite *seeks_suite(void)
{
    Suite *s = suite_create("seeks");
    TCase *tc = tcase_create("seeks");

    tcase_add_unchecked_fixture(tc, setup_server, teardown_server);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_colours);
    tcase_add_test(tc, test_clock_and_rated);
    tcase_add_test(tc, test_ranges);
    tcase_add_test(tc, test_one_seek_per_player);
    tcase_add_test(tc, test_seeks_per_address);
    tcase_add_test(tc, test_dead_node_seeks);
    tcase_add_test(tc, test_read_and_take);
    tcase_add_test(tc, test_challenges);
    tcase_add_test(tc, test_thousand_at_once);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(seeks_suite());
}
