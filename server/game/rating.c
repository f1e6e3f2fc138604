/* rating.c - see rating.h. The step numbers are those of Glickman's
 * "Example of the Glicko-2 system". */
#include "game/rating.h"

#include <math.h>
#include <string.h>

/* Step 2's conversion factor between the display and Glicko-2 scales. */
#define SCALE 173.7178
/* Step 5's convergence tolerance. */
#define EPSILON 1e-6
/* A bound on step 5's iterations: the Illinois method converges in a few
 * dozen; the bound only keeps a NaN from looping forever. */
#define MAX_ITER 200

static const char *const category_names[RATING_CATEGORIES] = {
    [RATING_BULLET] = "bullet",     [RATING_BLITZ] = "blitz",
    [RATING_RAPID] = "rapid",       [RATING_CLASSICAL] = "classical",
    [RATING_PER_MOVE] = "per_move",
};

enum rating_category rating_category(const struct clock_spec *spec)
{
    if (spec->per_move)
        return RATING_PER_MOVE;
    long estimate = (long)spec->initial_s + 40L * spec->increment_s;
    if (estimate < 180)
        return RATING_BULLET;
    if (estimate < 480)
        return RATING_BLITZ;
    if (estimate < 1500)
        return RATING_RAPID;
    return RATING_CLASSICAL;
}

const char *rating_category_name(enum rating_category c)
{
    if ((int)c < 0 || c >= RATING_CATEGORIES)
        return NULL;
    return category_names[c];
}

bool rating_category_parse(const char *name, enum rating_category *out)
{
    if (!name)
        return false;
    for (int i = 0; i < RATING_CATEGORIES; i++)
        if (strcmp(name, category_names[i]) == 0) {
            *out = (enum rating_category)i;
            return true;
        }
    return false;
}

struct rating rating_start(void)
{
    return (struct rating){RATING_START, RATING_RD_START, RATING_VOL_START};
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

struct rating rating_aged(struct rating r, double days)
{
    if (!(days > 0))
        days = 0;
    double phi = r.rd / SCALE;
    double grown = sqrt(phi * phi + r.vol * r.vol * days) * SCALE;
    r.rd = grown < RATING_RD_MAX ? grown : RATING_RD_MAX;
    return r;
}

/* Step 3's g(phi). */
static double g(double phi)
{
    return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

/* Step 3's E(mu, mu_j, phi_j). */
static double expect(double mu, double mu_j, double phi_j)
{
    return 1.0 / (1.0 + exp(-g(phi_j) * (mu - mu_j)));
}

/* Step 5.1's f(x). */
static double vol_f(double x, double delta2, double phi2, double v, double a)
{
    double ex = exp(x);
    double d = phi2 + v + ex;
    return ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) -
           (x - a) / (RATING_TAU * RATING_TAU);
}

/* Step 5: the new volatility sigma' by the Illinois algorithm. */
static double new_vol(double sigma, double delta, double phi, double v)
{
    double delta2 = delta * delta, phi2 = phi * phi;
    double a = log(sigma * sigma);
    double A = a, B;

    if (delta2 > phi2 + v) {
        B = log(delta2 - phi2 - v);
    } else {
        int k = 1;
        while (vol_f(a - k * RATING_TAU, delta2, phi2, v, a) < 0 &&
               k < MAX_ITER)
            k++;
        B = a - k * RATING_TAU;
    }
    double fA = vol_f(A, delta2, phi2, v, a);
    double fB = vol_f(B, delta2, phi2, v, a);
    for (int i = 0; fabs(B - A) > EPSILON && i < MAX_ITER; i++) {
        double C = A + (A - B) * fA / (fB - fA);
        double fC = vol_f(C, delta2, phi2, v, a);
        if (fC * fB <= 0) {
            A = B;
            fA = fB;
        } else {
            fA /= 2.0;
        }
        B = C;
        fB = fC;
    }
    return exp(A / 2.0);
}

struct rating rating_update(struct rating r,
                            const struct rating_result *results, size_t n)
{
    /* step 2 */
    double mu = (r.rating - RATING_START) / SCALE;
    double phi = r.rd / SCALE;
    struct rating out = r;

    if (n == 0) {
        /* no games: step 6 only */
        out.rd = clamp(sqrt(phi * phi + r.vol * r.vol) * SCALE, RATING_RD_MIN,
                       RATING_RD_MAX);
        return out;
    }
    /* steps 3 and 4 */
    double inv_v = 0, sum = 0;
    for (size_t j = 0; j < n; j++) {
        double mu_j = (results[j].rating - RATING_START) / SCALE;
        double phi_j = results[j].rd / SCALE;
        double g_j = g(phi_j), e_j = expect(mu, mu_j, phi_j);
        inv_v += g_j * g_j * e_j * (1.0 - e_j);
        sum += g_j * (results[j].score - e_j);
    }
    double v = 1.0 / inv_v;
    double delta = v * sum;
    /* step 5 */
    double sigma = new_vol(r.vol, delta, phi, v);
    /* step 6 */
    double phi_star = sqrt(phi * phi + sigma * sigma);
    /* step 7 */
    double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
    double mu_new = mu + phi_new * phi_new * sum;
    /* step 8 */
    out.rating = SCALE * mu_new + RATING_START;
    out.rd = clamp(SCALE * phi_new, RATING_RD_MIN, RATING_RD_MAX);
    out.vol = sigma;
    return out;
}

void rating_game(struct rating *white, double white_days,
                 struct rating *black, double black_days, double white_score)
{
    struct rating w = rating_aged(*white, white_days);
    struct rating b = rating_aged(*black, black_days);
    struct rating_result vs_black = {b.rating, b.rd, white_score};
    struct rating_result vs_white = {w.rating, w.rd, 1.0 - white_score};

    *white = rating_update(w, &vs_black, 1);
    *black = rating_update(b, &vs_white, 1);
}

bool rating_provisional(const struct rating *r)
{
    return r->rd > RATING_RD_PROVISIONAL;
}

long rating_round(double x)
{
    return (long)floor(x + 0.5);
}
