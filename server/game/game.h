/*
 * game.h - one live game: the rules core's record, the clock, the seats,
 * the subscribers (players' connections and spectators), draw offers,
 * presence and every way the game can end.
 *
 * A game never sees the network, the database or a clock. Time comes in as
 * `now` (monotonic milliseconds); everything going out goes through the
 * struct game_env it was created with: messages to subscribers (each with
 * the store sequence number it must wait for, so that nobody sees a move
 * before its journal row committed), store writes, and its single timer,
 * armed at the next deadline (flag, first-move abort, grace expiry, end of
 * a pause, invitation expiry, or the end of the linger after the end).
 *
 * A rated game (game_new's `rated`) shows its players' ratings in its
 * category (game_set_rating, from the host) with game_start and state;
 * when it ends with a result (not aborted, no_start or cancelled) it
 * asks the host for both players' current ratings (env.ratings),
 * computes the new ones (rating_game:
 * each player's RD first grows for the days since their last rated game
 * in the category), and hands both rows to env.finish with the game's
 * end, so that they are stored in the same transaction; game_end, the
 * PGN and the stored row carry the ratings before and after. A rated
 * game that ends before both sides have moved (fewer than 2 plies) ends
 * aborted, whatever ended it: a resignation, leave, a draw agreed, the
 * grace period (as on lichess; PROTOCOL.md section 6, the endings).
 *
 * Commands return 0, or -1 with the protocol error in *err (nothing
 * changed then). Only the event-loop thread calls these functions.
 */
#ifndef SERVER_GAME_H
#define SERVER_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "clock.h"
#include "dead.h"
#include "ending.h"
#include "movegen.h"
#include "proto.h"
#include "game/rows.h"

struct game;
struct session; /* a subscriber; opaque to the game */
struct msgbuf;

/* Roles of a subscriber. */
enum game_role { GAME_WHITE = 0, GAME_BLACK = 1, GAME_SPECTATOR = 2 };

enum game_status { GAME_WAITING, GAME_STARTED, GAME_ENDED };

/* What a game needs from its host (the hub, or a test's fakes). */
struct game_env {
    void *ctx;
    int64_t grace_ms;      /* disconnection grace period */
    int64_t first_move_ms; /* time for each side's first move */
    /* Queues b for `to` (adds its own reference), to be written once the
     * store has committed seq (0: at once). b NULL: a message to `to`
     * could not be made (out of memory): its connection must not go on
     * without it (the hub closes it, and the client resyncs). */
    void (*send)(void *ctx, struct session *to, struct msgbuf *b,
                 uint64_t seq);
    /* Arms the game's timer at monotonic `at`, CLOCK_NEVER to disarm. */
    void (*arm)(void *ctx, struct game *g, int64_t at);
    /* Store writes: return a sequence number, each above the last (the
     * store numbers its writes in order), 0 when the queue is full. */
    uint64_t (*put_game)(void *ctx, const struct store_game *row);
    uint64_t (*put_move)(void *ctx, const char *gid,
                         const struct store_move *m);
    /* The end: the row, the game's moves (moves[0..n-1], as they were
     * journaled), its PGN and, for a rated game, both players' new
     * ratings (ratings[0] white's, [1] black's; NULL: casual, or no
     * rating change). */
    uint64_t (*finish)(void *ctx, const struct store_game *row,
                       const struct store_move *moves, size_t n,
                       const char *pgn, const struct store_rating *ratings);
    /* A rated game ends: fills out[0] (white) and out[1] (black) with
     * the players' current ratings in the category `category` (a
     * rating_category_name): the store's row, or what is queued to
     * replace it; a player without one gets rating_start's values, no
     * games and last_ms 0. Returns 0, or -1 when they cannot be read
     * (the game then ends without a rating change). NULL: never rated. */
    int (*ratings)(void *ctx, const struct game *g, const char *category,
                   struct store_rating out[2]);
    /* Unix epoch milliseconds now. */
    int64_t (*wall_ms)(void *ctx);
    /* A clock ran out: asks the host whether `color` can still checkmate
     * on b (the bounded search, dead_search_can_mate, off the loop); the
     * host answers later with game_verdict. Returns 0, or -1 when it
     * cannot ask, and the game decides on the static tests at once.
     * NULL: static tests only. */
    int (*ask_verdict)(void *ctx, struct game *g, const struct board *b,
                       int color);
    /* The game has just ended (its game_end is queued). */
    void (*ended)(void *ctx, struct game *g);
    /* The ended game lingered long enough: the host unsubscribes and
     * frees it (it may do so inside this call). */
    void (*expired)(void *ctx, struct game *g);
    /* A turn (a clock, a first-move time) begins only once the messages
     * announcing it go out, i.e. once the store has committed seq: returns
     * true when seq is committed already (the turn begins at once), else
     * false, and the host calls game_released(g, seq, now) when it is.
     * Until then the side to move is charged nothing and no deadline of
     * that turn runs. NULL: every write counts as released at once. */
    bool (*hold)(void *ctx, struct game *g, uint64_t seq);
    /* The side to move's turn has begun: its clock (or the time for its
     * first move) runs, the messages announcing it released. A host
     * that plays a seat itself (the computer: hub/computer.c) asks for
     * its move then, later: it must not call the game back inside this
     * call (the game is in the middle of a command). NULL: none. */
    void (*turn)(void *ctx, struct game *g, int64_t now);
};

/* Seat holders when a game is created. */
struct game_seat_init {
    const char *pid; /* NULL: seat empty */
    const char *name;
};

/*
 * Creates a game and writes its row. With both seats taken it starts at
 * once (paired from seeks); with one it is an invitation (waiting) whose
 * creator is creator_pid. start is the initial position (already
 * validated); rated makes it a rated game. Returns NULL when out of
 * memory or the store is full.
 * The env is copied. The caller subscribes the players, then calls
 * game_announce_start for a started game.
 */
struct game *game_new(const struct game_env *env, const char *gid,
                      const struct clock_spec *clock,
                      const struct board *start,
                      const struct game_seat_init seats[2],
                      const char *creator_pid, bool rated, int64_t now);

/* Rebuilds a game from its stored row and journal: a live one after a
 * restart, or an ended one (status "ended") to render its state.
 * The side to move is charged from its last move up to heartbeat_ms (the
 * previous run's last sign of life, Unix ms; 0: unknown, charged up to
 * now for a correspondence game, else not at all). A started game comes
 * back paused with both players absent (a correspondence game's pause
 * ends at once: it waits for nobody). Returns NULL when the stored game
 * cannot be rebuilt: a start position the rules core refuses (such as
 * material no game reaches, stored before that was checked), an illegal
 * move in the journal, or out of memory; *why (when why is not NULL) then
 * names the cause in a static sentence. */
struct game *game_restore(const struct game_env *env,
                          const struct store_game *row,
                          const struct store_move *moves, size_t n,
                          int64_t heartbeat_ms, int64_t now,
                          const char **why);

/* The answer to env.ask_verdict: ends the game on time, won by the
 * opponent when it can mate, drawn otherwise, with *proof (copied) as why
 * it could not (it may be NULL when can_mate). Ignored unless the game is
 * waiting for it. */
void game_verdict(struct game *g, bool can_mate,
                  const struct dead_proof *proof, int64_t now);

/* Why each side could not checkmate (out[0] white's, out[1] black's;
 * DEAD_UNPROVEN for a side that is not part of the ending) when g ended
 * dead_position or timeout_vs_insufficient: returns true and fills out;
 * false for any other game. */
bool game_proof(const struct game *g, struct dead_proof out[2]);

/* The host released (sent) the messages waiting for store sequence
 * number seq at now: the turn held for it (env.hold) begins, its clock
 * running from now. Later sequence numbers release earlier ones too;
 * anything else is ignored. */
void game_released(struct game *g, uint64_t seq, int64_t now);

/* Frees the game; its subscribers are dropped without messages.
 * game_free(NULL) is a no-op. */
void game_free(struct game *g);

const char *game_gid(const struct game *g);
enum game_status game_status(const struct game *g);
/* Seat holder's pid ("" when empty) and name; color is 0 or 1. */
const char *game_seat_pid(const struct game *g, int color);
const char *game_seat_name(const struct game *g, int color);
/* The colour pid plays, or -1. */
int game_color_of(const struct game *g, const char *pid);
const char *game_creator(const struct game *g);
/* The ending's wire name ("" while live) and the ending itself (only
 * meaningful once the game is GAME_ENDED). */
const char *game_reason(const struct game *g);
enum ending_reason game_ending(const struct game *g);
/* The result once GAME_ENDED (ENDING_NO_RESULT: aborted, no_start ...). */
enum ending_result game_result(const struct game *g);
int game_ply(const struct game *g);
/* The colour to move (0 white, 1 black). */
int game_side_to_move(const struct game *g);
/* The UCI text of the game's ply i + 1 (0 <= i < game_ply), g's. */
const char *game_move_uci(const struct game *g, int i);
/* The time color has left on its clock at now (ms; a per-move clock:
 * for this move). */
int64_t game_time_left(const struct game *g, int color, int64_t now);
/* The time the side to move has for this turn at now (ms): its first-move
 * time while the first moves are pending, else its clock's. */
int64_t game_turn_left(const struct game *g, int64_t now);
/* The legal moves of the side to move into out, in the byte order of
 * their UCI text (the list a `moved` or `state` shows, whatever the
 * status): the game keeps them from one move to the next, for the next
 * move's check and SAN, and generates them only when it has not (a new
 * or restored game). Returns how many. */
int game_legal_moves(struct game *g, move_t out[MOVES_MAX]);
/* The colour whose draw offer, and whose takeback request, is pending
 * in g (started), or -1 (as `state`'s draw_offer and takeback). */
int game_draw_offered_by(const struct game *g);
int game_takeback_asked_by(const struct game *g);
/* The sequence number of the game's last store write. */
uint64_t game_seq(const struct game *g);
/* True when g could go to another host (restored there from its stored
 * rows) and nobody would notice: started, past both first moves, both
 * players present, not paused, no turn held for the store, no flag
 * waiting for its verdict, and no draw offer pending or remembered (a
 * restore forgets who offered or declined since their last move). */
bool game_movable(const struct game *g);
/* Unix ms when the game was created. */
int64_t game_created_ms(const struct game *g);
/* The clock settings and the start position (its FEN, normalised) the
 * game was created with; both owned by g. */
const struct clock_spec *game_clock_spec(const struct game *g);
const char *game_initial_fen(const struct game *g);
/* The position now as FEN into fen (FEN_MAX bytes). */
void game_fen(const struct game *g, char fen[FEN_MAX]);
/* Whether the game is rated. */
bool game_rated(const struct game *g);
/* Makes a waiting game (an invitation, not yet joined) rated or casual:
 * the host's, before game_join, for an invitation whose two players may
 * have no more rated games counted today (the next row written, the
 * join's, says so; the host sets it back if the join fails). */
void game_set_rated(struct game *g, bool rated);
/* The player in seat color (0 or 1) as game_start and state show it (its
 * rating in a rated game); the strings are g's. */
struct proto_player game_seat_player(const struct game *g, int color);
/* Marks seat `color`'s player an account (true) or a guest, as every
 * PLAYER of the game shows it ("account"); a seat is a guest's until
 * the host says (when the seat is taken, or the game restored). */
void game_set_account(struct game *g, int color, bool account);
/* Marks seat `color`'s player a bot account (PLAYER's "bot", the Bot
 * API's "title":"BOT"), as game_set_account. */
void game_set_bot(struct game *g, int color, bool bot);
/* The rating (and its RD) of the player in seat color shown with a rated
 * game's game_start and state until it ends; the host sets it when the
 * seat is taken (or the game restored). Ignored for a casual game. */
void game_set_rating(struct game *g, int color, double rating, double rd);
/* Opaque pointer the host may keep with the game (its timer). */
void *game_user(const struct game *g);
void game_set_user(struct game *g, void *user);

/* Subscribes s (idempotent; a second call may change the role).
 * Returns 0 or -1 when out of memory. */
int game_subscribe(struct game *g, struct session *s, enum game_role role);
void game_unsubscribe(struct game *g, struct session *s);
bool game_is_subscribed(const struct game *g, const struct session *s);

/* How many sessions g sends its messages to. */
size_t game_subscriptions(const struct game *g);

/* Sends game_start (to each player's subscribers, with "you") followed by
 * state to every subscriber. */
void game_announce_start(struct game *g, int64_t now);

/* Queues for s alone what a player's connections get when the game
 * starts: the game_start of colour c (when the game has started and c
 * is 0 or 1) and state. (A connection of another node that attaches to
 * a game just created: cluster.c.) */
void game_send_start(struct game *g, struct session *s, int c, int64_t now);

/* Copies the game's subscribers (players' fans, spectators' sessions)
 * into out[0..max); returns how many. */
size_t game_subscribers(const struct game *g, struct session **out,
                        size_t max);

/* Queues the `state` message for s (echoing id), behind the game's
 * pending messages. */
void game_send_state(struct game *g, struct session *s,
                     const struct proto_id *id, int64_t now);

/* Renders the state echoing id (NULL: none), or the HTTP API's body when
 * api is true. Returns a malloc'ed string the caller frees. */
char *game_render_state(struct game *g, const struct proto_id *id, bool api,
                        int64_t now);

/* Renders the state of a finished game (row status "ended") straight
 * from its stored row and journal, as game_render_state of the restored
 * game would, without replaying its moves (the final position is the
 * row's final_fen). Returns a malloc'ed string the caller frees, or NULL
 * when out of memory or the row is not an ended game with a valid FEN.
 * account[c]: seat c's player is an account (its PLAYER's "account"). */
char *game_render_stored(const struct store_game *row,
                         const struct store_move *moves, size_t n,
                         const bool account[2], const struct proto_id *id,
                         bool api);

/* The game's PGN so far (result "*" while live); malloc'ed, caller
 * frees; NULL when out of memory. */
char *game_pgn(const struct game *g);

/* Plays through every deadline that has passed by now. */
void game_tick(struct game *g, int64_t now);
/* The game's timer fired. May call env->expired (the game is gone then). */
void game_on_timer(struct game *g, int64_t now);

/* Player commands, checked in the protocol's order. */
int game_join(struct game *g, const char *pid, const char *name, int64_t now,
              struct proto_error *err);
int game_move(struct game *g, const char *pid, const char *uci, int ply,
              int64_t now, struct proto_error *err);
/* game_move of a move that came on a connection whose round trip the
 * host measured as rtt_ms (0: none known). Half of it is the one-way
 * estimate: a Fischer move is credited back min(rtt_ms / 2,
 * LAG_CREDIT_MAX_MS, the time the move took on the game's clock, the
 * mover's lag quota) (tunables.h), stored with the move and shown in
 * moved's lag_ms and the PGN. A played move's rtt_ms (when known)
 * becomes its seat's round trip, which moved's rtt_ms and state's rtt
 * show (the signal bar). A move sent with a claim (game_claim) gets no
 * credit. */
int game_move_lag(struct game *g, const char *pid, const char *uci, int ply,
                  int64_t rtt_ms, int64_t now, struct proto_error *err);
/* The lag credit of the last move played (ms, 0: none). */
int64_t game_last_lag_ms(const struct game *g);
int game_resign(struct game *g, const char *pid, int64_t now,
                struct proto_error *err);
/* leave: resigns a started game, cancels the creator's waiting game;
 * otherwise it only unsubscribes s. */
int game_leave(struct game *g, const char *pid, struct session *s,
               int64_t now, struct proto_error *err);
/* Ended g as lichess's playban rules see it (playban.h), at now (the
 * game's clock) and wall (Unix ms): who aborted, resigned or left, who
 * was there, the clock, each side's last move (game_playban.c). */
struct playban_game;
void game_playban_view(const struct game *g, int64_t now, int64_t wall,
                       struct playban_game *out);
int game_abort(struct game *g, const char *pid, int64_t now,
               struct proto_error *err);
/* A moderator ends g in play (started, no flag pending) with result: a
 * win or a draw `adjudicated` / `adjudicated_draw` (rated as any end),
 * or `*` aborted; nobody is its actor. 0, or -1 with err (game_over: it
 * is not in play). */
int game_adjudicate(struct game *g, enum ending_result result, int64_t now,
                    struct proto_error *err);
int game_draw_offer(struct game *g, const char *pid, int64_t now,
                    struct proto_error *err);
int game_draw_accept(struct game *g, const char *pid, int64_t now,
                     struct proto_error *err);
int game_draw_decline(struct game *g, const char *pid, int64_t now,
                      struct proto_error *err);
/* Takebacks and time given (game_takeback.c; PROTOCOL.md "Takebacks").
 * takeback: pid asks to take back its last move (the last two plies
 * when it is its turn again); `allowed` is what both players'
 * preferences say of this game (the host reads them). Checks, in this
 * order: the seat and status (game_check_player), takeback_not_allowed
 * (also once GAME_TAKEBACKS_MAX were accepted in the game),
 * nothing_to_take_back (fewer than 2 plies), then a pending request of
 * the opponent is accepted, one of pid's own is left alone, and
 * takeback_declined while pid's last request was declined with no move
 * since. Nothing is stored until the opponent accepts: the accepted
 * takeback is a journal row, so a restart replays it. A move played
 * lets the pending request lapse. */
int game_takeback(struct game *g, const char *pid, bool allowed, int64_t now,
                  struct proto_error *err);
/* The opponent's pending request (else no_takeback_request) accepted or
 * declined. */
int game_takeback_accept(struct game *g, const char *pid, int64_t now,
                         struct proto_error *err);
int game_takeback_decline(struct game *g, const char *pid, int64_t now,
                          struct proto_error *err);
/* GAME_GIVE_MS more on the opponent's clock: give_time_not_allowed with
 * a per-move clock or before the clocks run (2 plies), give_time_capped
 * once pid has given GAME_GIVE_CAP_MS in this game. Journaled. */
#define GAME_TAKEBACKS_MAX \
    100 /* accepted in one game: takeback_not_allowed
                                  after (each is a journal row) */
#define GAME_GIVE_MS 15000
#define GAME_GIVE_CAP_MS 60000
int game_give_time(struct game *g, const char *pid, int64_t now,
                   struct proto_error *err);

/* pid's side goes berserk before its first move (an arena's rule, which
 * its director checks first): its clock becomes left_ms with no
 * increment, journaled (STORE_JOURNAL_BERSERK), and everyone gets
 * `berserk`. berserk_refused with a per-move clock, once the side has
 * moved or when it has berserked already. */
int game_berserk(struct game *g, const char *pid, int64_t left_ms,
                 int64_t now, struct proto_error *err);
/* Whether color went berserk in g. */
bool game_berserked(const struct game *g, int color);
/* The time for g's first moves from now on: ms (> 0) instead of the
 * host's (game_env.first_move_ms); an arena's by speed. Not stored: the
 * host sets it again on a restored game. */
void game_set_first_move_ms(struct game *g, int64_t ms);

/* No draw by agreement in g before ply plies (a Swiss event's rule:
 * lichess's, 60): draw_offer, and draw_accept of an offer a takeback
 * left standing, are draw_too_early until then; claims and the
 * automatic endings stay. Not stored: the host sets it again on a
 * restored game. */
void game_set_draw_from_ply(struct game *g, int plies);

/* g is a game of tournament ev (copied): every state while g is not
 * over says so ("event"), so that a player who comes back and a
 * spectator see it. Not stored: the host sets it again on a restored
 * game, and a node that receives the game from another (game_hosted). */
void game_set_event(struct game *g, const struct proto_event_link *ev);
/* The tournament game_set_event gave g, or NULL: none. */
const struct proto_event_link *game_event(const struct game *g);

/* A claim; uci "" for none, ply -1 for none. */
int game_claim(struct game *g, const char *pid, const char *uci, int ply,
               int64_t now, struct proto_error *err);

/* Presence: the player's last connection closed / a connection of the
 * player said hello again; color (0 or 1) is the player's seat. */
void game_player_gone(struct game *g, int color, int64_t now);
void game_player_back(struct game *g, int color, int64_t now);

#endif
