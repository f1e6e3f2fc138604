/*
 * playban.c - lichess's playban rules (playban.h). Each rule names the
 * lila file and definition it follows (modules/playban/src/main/).
 */
#include "playban.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MINUTE_MS 60000LL
#define HOUR_MS (60 * MINUTE_MS)
#define DAY_MS (24 * HOUR_MS)

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* chess's Clock.Config.estimateTotalSeconds: the initial time and 40
 * increments. */
static int64_t estimate_total_s(const struct playban_game *g)
{
    return g->initial_ms / 1000 + 40 * (g->increment_ms / 1000);
}

/* PlaybanApi.flag's unreasonableTime (also other's SitResign limit):
 * a tenth of the estimate, at least 30 s, at most 3 minutes. */
static int64_t unreasonable_s(const struct playban_game *g)
{
    return clamp64(estimate_total_s(g) / 10, 30, 3 * 60);
}

/* Seconds since the last move (nowSeconds - movedAt.toSeconds). */
static int64_t waited_s(const struct playban_game *g)
{
    return g->now_ms / 1000 - g->moved_ms / 1000;
}

/* PlaybanApi.isQuickResign: a resignation with few moves
 * (Game.hasFewerMovesThanExpected: at most 20 plies, lila's
 * reasonableMinimumNumberOfMoves for standard chess) soon after the start
 * (under a third of the estimate, at most 60 s), unless it is the
 * loser's first such in a day (quickResignCasualOnce, a OnceEvery of a
 * day: asking records it). */
static bool quick_resign(const struct playban_game *g, int64_t *forgiven_ms)
{
    int64_t very_quick = estimate_total_s(g) / 3;

    if (g->reason != ENDING_RESIGNATION || g->plies > 20)
        return false;
    if (very_quick > 60)
        very_quick = 60;
    if ((g->now_ms - g->started_ms) / 1000 >= very_quick)
        return false;
    if (*forgiven_ms == 0 || g->now_ms - *forgiven_ms >= DAY_MS) {
        *forgiven_ms = g->now_ms; /* (OnceEvery: the first is forgiven) */
        return false;
    }
    return true;
}

/* PlaybanApi.flag: the flagger sat (waited the unreasonable time on its
 * last turn), else sat moving (its last move took that long), else good. */
static int judge_flag(const struct playban_game *g)
{
    int64_t limit = unreasonable_s(g), last;

    if (waited_s(g) >= limit)
        return PLAYBAN_SITTING;
    last = g->last_move_ms[g->side_to_move];
    /* (Centis.roundSeconds) */
    if (last >= 0 && (last + 500) / 1000 >= limit)
        return PLAYBAN_SIT_MOVING;
    return PLAYBAN_GOOD;
}

/* PlaybanApi.other, for the loser: a casual quick resign is a sandbag
 * (without the blame checks), a resign on its own turn with under 10 s
 * left after waiting longer than the unreasonable time is SitResign,
 * else good (PlaybanApi.good: a quick resign is a sandbag there too). In
 * a casual game the quick resign is asked twice, the first time
 * recording the day's forgiveness: lila then blames it in good(), so a
 * casual quick resign is always a sandbag; a rated one is forgiven once
 * a day. This follows that. */
static int judge_other(const struct playban_game *g, int loser,
                       int64_t *forgiven_ms)
{
    if (!g->rated && quick_resign(g, forgiven_ms))
        return PLAYBAN_SANDBAG;
    if (g->reason == ENDING_RESIGNATION && g->left_ms[loser] < 10000 &&
        g->side_to_move == loser && unreasonable_s(g) < waited_s(g))
        return PLAYBAN_SIT_RESIGN;
    return quick_resign(g, forgiven_ms) ? PLAYBAN_SANDBAG : PLAYBAN_GOOD;
}

int playban_judge(const struct playban_game *g, int c, int64_t *forgiven_ms)
{
    switch (g->reason) {
    case ENDING_ABORTED: /* PlaybanApi.abort: if the opponent was there */
        return g->actor == c && g->present[1 - c] ? PLAYBAN_ABORT
                                                  : PLAYBAN_NONE;
    case ENDING_NO_START: /* PlaybanApi.noStart */
        return g->side_to_move == c ? PLAYBAN_NO_PLAY : PLAYBAN_NONE;
    case ENDING_ABANDONED: /* PlaybanApi.rageQuit: the grace ran out */
        return g->winner == 1 - c ? PLAYBAN_RAGE_QUIT : PLAYBAN_NONE;
    case ENDING_TIMEOUT:
    case ENDING_TIMEOUT_VS_INSUFFICIENT: /* PlaybanApi.flag */
        return g->side_to_move == c ? judge_flag(g) : PLAYBAN_NONE;
    case ENDING_CANCELLED:
    case ENDING_ADJUDICATED: /* (a moderator's, no player's doing) */
        return PLAYBAN_NONE;
    default: /* PlaybanApi.other: the loser only, so never a draw */
        return g->winner == 1 - c ? judge_other(g, c, forgiven_ms)
                                  : PLAYBAN_NONE;
    }
}

int64_t playban_ends(const struct playban_record *r, int64_t now_ms)
{
    const struct playban_ban *b;
    int64_t end;

    if (!r->nbans)
        return 0;
    b = &r->ban[r->nbans - 1];
    end = b->at_ms + b->mins * MINUTE_MS;
    return end > now_ms ? end : 0; /* (TempBan.inEffect) */
}

/* UserRecord.badOutcomeScore in tenths: a sandbag 0.7, an abort or no
 * play 0.8, any other bad outcome 1. */
static int bad_score10(const struct playban_record *r)
{
    int s = 0;

    for (int i = 0; i < r->n; i++)
        s += r->outcome[i] == PLAYBAN_GOOD      ? 0
             : r->outcome[i] == PLAYBAN_SANDBAG ? 7
             : r->outcome[i] == PLAYBAN_ABORT ||
                     r->outcome[i] == PLAYBAN_NO_PLAY
                 ? 8
                 : 10;
    return s;
}

/* UserRecord.bansThisWeek. */
static int bans_this_week(const struct playban_record *r, int64_t now_ms)
{
    int n = 0;

    for (int i = 0; i < r->nbans; i++)
        n += r->ban[i].at_ms > now_ms - 7 * DAY_MS;
    return n;
}

/* The last k outcomes are all bad (and there are k). */
static bool bad_run(const struct playban_record *r, int k)
{
    if (r->n < k)
        return false;
    for (int i = r->n - k; i < r->n; i++)
        if (r->outcome[i] == PLAYBAN_GOOD)
            return false;
    return true;
}

/* UserRecord.bannable (without rageSitRecidive; trusted). */
static bool bannable(const struct playban_record *r, int64_t now_ms,
                     int age_days)
{
    int week = bans_this_week(r, now_ms);
    /* badOutcomeTolerance, in tenths */
    int tol10 = age_days <= 1 ? 3 : r->nbans < 3 ? 4 : 3;
    /* minBadOutcomes */
    int min_bad = week <= 1 ? 4 : week <= 3 ? 3 : 2;
    /* badOutcomesStreakSize */
    int streak = age_days < 1    ? 3
                 : r->nbans == 0 ? 6
                 : r->nbans < 3  ? 5
                 : r->nbans < 10 ? 4
                                 : 3;
    int need10 = tol10 * r->n;

    if (!r->n || r->outcome[r->n - 1] == PLAYBAN_GOOD)
        return false;
    if (need10 < min_bad * 10)
        need10 = min_bad * 10;
    return bad_score10(r) >= need10 || bad_run(r, streak) ||
           /* "last 2 games", for a new account */
           (age_days < 1 && r->n < 9 && r->n > 1 && bad_run(r, 2));
}

/* TempBan.make: 10 minutes, or after a ban that ended h hours ago its
 * length times (132 - h) / 60 (3x at once, down to 1x at 72 h), later a
 * quick drop off; doubled for an account up to 3 days old, tripled on
 * its first day; at most 3 days. */
static int ban_minutes(const struct playban_record *r, int64_t now_ms,
                       int age_days)
{
    int64_t base = 0;

    if (r->nbans) {
        const struct playban_ban *p = &r->ban[r->nbans - 1];
        int64_t h = (now_ms - (p->at_ms + p->mins * MINUTE_MS)) / HOUR_MS;

        if (h < 72) {
            base = (int64_t)p->mins * (132 - h) / 60;
        } else { /* (h / 720: Scala's integer division) */
            double m = p->mins;
            base = (int64_t)(55.6 * m /
                             (pow(5.56 * m - 54.6, (double)(h / 720)) +
                              54.6));
        }
    }
    if (base < PLAYBAN_BASE_MINUTES)
        base = PLAYBAN_BASE_MINUTES;
    base *= age_days == 0 ? 3 : age_days <= 3 ? 2 : 1;
    return (int)(base > PLAYBAN_MAX_MINUTES ? PLAYBAN_MAX_MINUTES : base);
}

int playban_add(struct playban_record *r, int o, int64_t now_ms, int age_days)
{
    int mins;

    if (o < 0 || o >= PLAYBAN_OUTCOMES)
        return 0;
    r->version++;
    if (r->n == PLAYBAN_KEEP) { /* ($slice -30) */
        memmove(r->outcome, r->outcome + 1, PLAYBAN_KEEP - 1);
        r->n--;
    }
    r->outcome[r->n++] = (uint8_t)o;
    /* PlaybanApi.save: a good outcome is only recorded; legiferate: no
     * new ban while one is in effect */
    if (o == PLAYBAN_GOOD || playban_ends(r, now_ms) ||
        !bannable(r, now_ms, age_days))
        return 0;
    mins = ban_minutes(r, now_ms, age_days);
    if (r->nbans == PLAYBAN_KEEP) {
        memmove(r->ban, r->ban + 1, (PLAYBAN_KEEP - 1) * sizeof *r->ban);
        r->nbans--;
    }
    r->ban[r->nbans++] = (struct playban_ban){now_ms, mins};
    r->n = 0; /* ($unset "o") */
    return mins;
}

size_t playban_encode(const struct playban_record *r, char *out, size_t cap)
{
    size_t n = 0;
    int w;

    w = snprintf(out, cap, "%" PRIu32 ":", r->version);
    n = w < 0 ? cap : (size_t)w;
    for (int i = 0; i < r->n && n + 1 < cap; i++)
        out[n++] = (char)('0' + r->outcome[i]);
    for (int i = 0; i < r->nbans && n < cap; i++) {
        w = snprintf(out + n, cap - n, "%s%" PRId64 "+%" PRId32,
                     i ? "," : ":", r->ban[i].at_ms, r->ban[i].mins);
        n += w < 0 ? cap : (size_t)w;
    }
    if (n < cap) {
        w = snprintf(out + n, cap - n, "%s:%" PRId64, r->nbans ? "" : ":",
                     r->forgiven_ms);
        n += w < 0 ? cap : (size_t)w;
    }
    if (n >= cap) { /* (cap too small: never with PLAYBAN_TEXT_MAX) */
        if (cap)
            out[0] = '\0';
        return 0;
    }
    return n;
}

/* A decimal integer in [lo, hi] at *s, which it moves past. */
static bool num(const char **s, int64_t lo, int64_t hi, int64_t *v)
{
    char *end;
    long long x;

    if (**s < '0' || **s > '9')
        return false;
    x = strtoll(*s, &end, 10);
    if (x < lo || x > hi)
        return false;
    *s = end;
    *v = x;
    return true;
}

int playban_decode(const char *s, struct playban_record *r)
{
    int64_t v;

    memset(r, 0, sizeof *r);
    if (!num(&s, 0, UINT32_MAX, &v) || *s++ != ':')
        goto bad;
    r->version = (uint32_t)v;
    for (; *s >= '0' && *s < '0' + PLAYBAN_OUTCOMES; s++) {
        if (r->n == PLAYBAN_KEEP)
            goto bad;
        r->outcome[r->n++] = (uint8_t)(*s - '0');
    }
    if (*s++ != ':')
        goto bad;
    while (*s != ':') {
        int64_t at, mins;
        if (r->nbans == PLAYBAN_KEEP || (r->nbans && *s++ != ',') ||
            !num(&s, 0, INT64_MAX / 2, &at) || *s++ != '+' ||
            !num(&s, 1, PLAYBAN_MAX_MINUTES, &mins))
            goto bad;
        r->ban[r->nbans++] = (struct playban_ban){at, (int32_t)mins};
    }
    s++;
    if (!num(&s, 0, INT64_MAX / 2, &v) || *s)
        goto bad;
    r->forgiven_ms = v;
    return 0;
bad:
    memset(r, 0, sizeof *r);
    return -1;
}

const char *playban_outcome_name(int o)
{
    static const char *const names[PLAYBAN_OUTCOMES] = {
        "good",    "abort",     "noPlay",  "rageQuit",
        "sitting", "sitMoving", "sandbag", "sitResign",
    };

    return o >= 0 && o < PLAYBAN_OUTCOMES ? names[o] : NULL;
}
