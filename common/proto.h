/*
 * proto.h - the wire protocol (version 1) as typed C values: parsing a
 * client's text message into a struct proto_msg (or the precise error the
 * protocol's check order demands), and rendering every server message and
 * HTTP API body as compact JSON.
 *
 * Only this module knows JSON. Rendering functions return a malloc'ed,
 * NUL-terminated string the caller frees (NULL when out of memory).
 * Nothing here keeps state; every function may be called from any thread.
 */
#ifndef COMMON_PROTO_H
#define COMMON_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "clock.h"
#include "dead.h"
#include "ending.h"
#include "notation.h"

/* Error codes, in the protocol's spelling (proto_code_name). */
enum proto_code {
    PROTO_OK = 0,
    PROTO_BAD_JSON,
    PROTO_BAD_FIELD,
    PROTO_UNKNOWN_TYPE,
    PROTO_UNAUTHENTICATED,
    PROTO_BAD_TOKEN,
    PROTO_NO_SUCH_GAME,
    PROTO_NOT_A_PLAYER,
    PROTO_NOT_STARTED,
    PROTO_GAME_OVER,
    PROTO_STALE_PLY,
    PROTO_NOT_YOUR_TURN,
    PROTO_ILLEGAL_MOVE,
    PROTO_BAD_CLOCK,
    PROTO_CLAIM_REJECTED,
    PROTO_SEAT_TAKEN,
    PROTO_OWN_GAME,
    PROTO_NO_DRAW_OFFER,
    PROTO_ABORT_NOT_ALLOWED,
    PROTO_NO_SEEK,
    PROTO_RATE_LIMITED,
    PROTO_TOO_MANY_GAMES,
    PROTO_NO_REMATCH,
    PROTO_BAD_USERNAME,        /* register: not 2-20 of A-Z a-z 0-9 _ - */
    PROTO_NAME_TAKEN,          /* register: another account has it */
    PROTO_WEAK_PASSWORD,       /* register: fewer than 8 characters */
    PROTO_ALREADY_REGISTERED,  /* register: the player is an account */
    PROTO_BAD_CREDENTIALS,     /* login: no such user or wrong password */
    PROTO_RATED_NEEDS_ACCOUNT, /* a rated seek, invite or join by a guest */
    PROTO_NEEDS_ACCOUNT,       /* settings: only an account stores them */
    PROTO_NO_SUCH_SEEK,        /* accept: no open seek has that SID */
    PROTO_RATING_OUT_OF_RANGE, /* accept: outside the seek's rating_range */
    PROTO_ADDRESS_FULL, /* an address holds max_games_per_ip live games */
    PROTO_SERVER_FULL,  /* the server holds max_live_games */
    PROTO_BUSY,         /* computer: the engines' queue is full */
    PROTO_NO_ENGINE,    /* computer: this server runs no engine */
    PROTO_NOTHING_TO_TAKE_BACK,  /* takeback: fewer than 2 plies played */
    PROTO_NO_TAKEBACK_REQUEST,   /* takeback_accept/decline: none pending */
    PROTO_TAKEBACK_DECLINED,     /* takeback: declined, no move since */
    PROTO_TAKEBACK_NOT_ALLOWED,  /* takeback: a player's preference */
    PROTO_GIVE_TIME_NOT_ALLOWED, /* give_time: per-move clock, no clock
                                    running yet */
    PROTO_GIVE_TIME_CAPPED,      /* give_time: the game's cap reached */
    PROTO_NO_SUCH_PLAYER,        /* challenge: nobody of that name or PID is
                                    online */
    PROTO_NO_SUCH_CHALLENGE,     /* challenge_*: none pending with that id
                                    for you */
    PROTO_TOO_MANY_CHALLENGES,   /* challenge: a cap on pending ones */
    PROTO_CHALLENGE_UNAVAILABLE, /* challenge: not served in a cluster */
    PROTO_NOT_FINISHED,          /* analyse: the game is not over */
    PROTO_ANALYSIS_LIMIT,        /* analyse: one running, or the day's used */
    PROTO_NO_SUCH_TOKEN,     /* token_revoke: the account has no such token */
    PROTO_TOO_MANY_TOKENS,   /* token_create: the account holds the most */
    PROTO_NO_SUCH_EVENT,     /* arena_*: no event has that id */
    PROTO_EVENT_OVER,        /* arena_join, arena_withdraw: it ended */
    PROTO_ALREADY_JOINED,    /* arena_join: playing in it already */
    PROTO_NOT_JOINED,        /* arena_withdraw: not playing in it */
    PROTO_PAUSED,            /* arena_join: a withdrawal's pause runs */
    PROTO_EVENTS_FULL,       /* arena_create: the server's cap */
    PROTO_BERSERK_REFUSED,   /* berserk: not now, not here (msg: why) */
    PROTO_CONDITION_NOT_MET, /* arena_, swiss_join: a condition (msg) */
    PROTO_NO_TOURNAMENTS,    /* arena_create: creation is off here */
    PROTO_CHAT_NOT_ALLOWED,  /* chat: a guest, chat off, not watching */
    PROTO_MUTED,             /* chat: muted after a flood, until ... */
    PROTO_PLAYBAN, /* a new game while a playban holds (hub/playban.c) */
    PROTO_BLOCKED, /* challenge, accept: a block between them */
    PROTO_TOO_MANY_BLOCKS,  /* block: the account holds the most */
    PROTO_ALREADY_REPORTED, /* report: this player, within a day */
    PROTO_NOT_ORGANISER,    /* swiss_start: not the event's creator;
                               arena_create, swiss_create: not one of
                               the operator's tourney_creators */
    PROTO_EVENT_STARTED,    /* swiss_start: started already */
    PROTO_BOT_API_ONLY,     /* a bot account starts games only by the API */
    PROTO_BOT_RATED,        /* challenge: rated, a bot against a human */
    PROTO_NOT_MODERATOR,    /* mod_*: the account is no moderator */
    PROTO_PAIRING,          /* swiss_join: a round is being paired */
    PROTO_REMOVED,          /* swiss_join: the organiser removed him */
    PROTO_BAD_PAIRINGS,     /* swiss_pair, swiss_forbid: refused */
    PROTO_ACCOUNT_CLOSED,   /* login, hello: closed by a moderator */
    PROTO_DRAW_TOO_EARLY,   /* draw_offer, draw_accept: a Swiss game
                               before move 30 */
    PROTO_ACCOUNT_TOO_NEW,  /* arena_create, swiss_create: younger than
                               the operator's tourney_account_days */
    PROTO_CODE_COUNT
};

/* Client message types. PROTO_T_NONE: the type is unknown or missing. */
enum proto_type {
    PROTO_T_NONE = 0,
    PROTO_T_HELLO,
    PROTO_T_PING,
    PROTO_T_SEEK,
    PROTO_T_CANCEL_SEEK,
    PROTO_T_INVITE,
    PROTO_T_JOIN,
    PROTO_T_MOVE,
    PROTO_T_RESIGN,
    PROTO_T_LEAVE,
    PROTO_T_ABORT,
    PROTO_T_DRAW_OFFER,
    PROTO_T_DRAW_ACCEPT,
    PROTO_T_DRAW_DECLINE,
    PROTO_T_DRAW_CLAIM,
    PROTO_T_SYNC,
    PROTO_T_WATCH,
    PROTO_T_UNWATCH,
    PROTO_T_REMATCH,
    PROTO_T_REMATCH_DECLINE,
    PROTO_T_REGISTER,
    PROTO_T_LOGIN,
    PROTO_T_LOGOUT,
    PROTO_T_SETTINGS,
    PROTO_T_LOBBY_WATCH,
    PROTO_T_LOBBY_UNWATCH,
    PROTO_T_ACCEPT,
    PROTO_T_COMPUTER,
    PROTO_T_TAKEBACK,
    PROTO_T_TAKEBACK_ACCEPT,
    PROTO_T_TAKEBACK_DECLINE,
    PROTO_T_GIVE_TIME,
    PROTO_T_CHALLENGE,
    PROTO_T_CHALLENGE_ACCEPT,
    PROTO_T_CHALLENGE_DECLINE,
    PROTO_T_CHALLENGE_CANCEL,
    PROTO_T_CHALLENGES,
    PROTO_T_ANALYSE,
    PROTO_T_ANALYSIS,
    PROTO_T_TOKEN_CREATE,
    PROTO_T_TOKEN_LIST,
    PROTO_T_TOKEN_REVOKE,
    PROTO_T_MY_GAMES,
    PROTO_T_TEST_CLOCK,
    PROTO_T_ARENA_CREATE,
    PROTO_T_ARENA_JOIN,
    PROTO_T_ARENA_WITHDRAW,
    PROTO_T_ARENA_LIST,
    PROTO_T_ARENA_WATCH,
    PROTO_T_ARENA_UNWATCH,
    PROTO_T_BERSERK,
    PROTO_T_CHAT,
    PROTO_T_BLOCK,
    PROTO_T_UNBLOCK,
    PROTO_T_BLOCKS,
    PROTO_T_REPORT,
    PROTO_T_SWISS_CREATE,
    PROTO_T_SWISS_JOIN,
    PROTO_T_SWISS_WITHDRAW,
    PROTO_T_SWISS_LIST,
    PROTO_T_SWISS_WATCH,
    PROTO_T_SWISS_UNWATCH,
    PROTO_T_SWISS_START,
    PROTO_T_SWISS_TRF,
    PROTO_T_MOD_REPORTS,
    PROTO_T_MOD_ACTION,
    PROTO_T_SWISS_PAUSE,
    PROTO_T_SWISS_RESUME,
    PROTO_T_SWISS_TERMINATE,
    PROTO_T_SWISS_REMOVE,
    PROTO_T_SWISS_FORBID,
    PROTO_T_SWISS_PAIR,
    PROTO_T_ARENA_START,
    PROTO_T_ARENA_TERMINATE,
    PROTO_T_MOD_MAINTENANCE,
    PROTO_T_MOD_PLAYER,
    PROTO_T_MOD_CHAT_DELETE,
    PROTO_T_MOD_GAME,
    PROTO_T_ARENA_RESULTS,
    PROTO_T_SWISS_RESULTS,
    PROTO_T_COUNT
};

/* Why a challenge was declined: lichess's keys (proto_decline_name),
 * in its order. */
enum proto_decline {
    PROTO_DECLINE_GENERIC = 0,
    PROTO_DECLINE_LATER,
    PROTO_DECLINE_TOO_FAST,
    PROTO_DECLINE_TOO_SLOW,
    PROTO_DECLINE_TIME_CONTROL,
    PROTO_DECLINE_RATED,
    PROTO_DECLINE_CASUAL,
    PROTO_DECLINE_STANDARD,
    PROTO_DECLINE_VARIANT,
    PROTO_DECLINE_NO_BOT,
    PROTO_DECLINE_ONLY_BOT,
    PROTO_DECLINE_COUNT
};

/* Colour wishes of seek and invite. */
enum proto_color { PROTO_RANDOM = 0, PROTO_WHITE, PROTO_BLACK };

#define PROTO_ID_MAX 64    /* bytes of a string id */
#define PROTO_NAME_MAX 20  /* characters of a player name */
#define PROTO_KEY_MAX 32   /* characters of a GID, PID or SID */
#define PROTO_TOKEN_MAX 64 /* characters of a token */
#define PROTO_MSG_MAX 200  /* bytes of an error's human text */
/* register and login: a username (2-20 of A-Z a-z 0-9 _ -) arrives as any
 * string of at most PROTO_USERNAME_FIELD_MAX bytes (longer: bad_field);
 * a password as a string of at most PROTO_PASSWORD_MAX bytes (longer:
 * bad_field) and, to register, at least PROTO_PASSWORD_MIN characters
 * (code points). */
#define PROTO_USERNAME_MIN 2
#define PROTO_USERNAME_MAX 20
#define PROTO_USERNAME_FIELD_MAX 64
#define PROTO_PASSWORD_MIN 8
#define PROTO_PASSWORD_MAX 128
/* seek: "rating_range":[LO,HI], integers with 0 <= LO <= HI <= this. */
#define PROTO_RATING_MAX 4000
/* settings: a JSON object of at most PROTO_SETTINGS_KEYS keys, each 1 to
 * PROTO_SETTINGS_KEY_MAX of A-Z a-z 0-9 _ -, whose values are true,
 * false, integers of magnitude below 2^53 or strings of at most
 * PROTO_SETTINGS_STRING_MAX bytes; at most PROTO_SETTINGS_MAX bytes as
 * the server serialises it (compact, in the sender's key order). */
#define PROTO_SETTINGS_KEYS 32
#define PROTO_SETTINGS_KEY_MAX 32
#define PROTO_SETTINGS_STRING_MAX 64
#define PROTO_SETTINGS_MAX 2048
/* token_create's description (bytes) and a token's id (characters). */
#define PROTO_DESCRIPTION_MAX 100
#define PROTO_TOKEN_ID_MAX 16

/* test_clock: the most test time one message may add (31 days). */
#define PROTO_TEST_ADVANCE_MAX_S (31 * 86400)
/* arena_create: "duration_s" from 10 s to a day, "start_in_s" from 0 to
 * a week. */
#define PROTO_ARENA_DURATION_MAX (24 * 3600)
#define PROTO_ARENA_START_IN_MAX (7 * 24 * 3600)
/* arena_watch's and swiss_watch's page: PROTO_STANDINGS_PAGE rows each,
 * at most PROTO_STANDINGS_PAGES pages (a Swiss's 5,000 players:
 * operator.md's swiss_players at most). */
#define PROTO_STANDINGS_PAGE 10
#define PROTO_STANDINGS_PAGES 500
/* arena_create's "conditions": a rated-games minimum up to this, a
 * password of 1 to PROTO_ENTRY_PASSWORD_MAX of A-Z a-z 0-9 _ -. */
#define PROTO_ENTRY_GAMES_MAX 10000
#define PROTO_ENTRY_PASSWORD_MAX 32

/* arena_create's and swiss_create's entry conditions (PROTOCOL.md
 * "Entry conditions"): 0 or "" where absent. */
struct proto_entry {
    int rating_min, rating_max; /* 0: no bound */
    int rated_games_min;
    bool accounts_only;
    bool bots; /* bot accounts may join (lichess's "allow bots") */
    char password[PROTO_ENTRY_PASSWORD_MAX + 1];
};
/* swiss_create: "rounds" from 1 to PROTO_SWISS_ROUNDS_MAX,
 * "interval_s" between rounds from 0 to an hour. */
#define PROTO_SWISS_ROUNDS_MAX 30
#define PROTO_SWISS_INTERVAL_MAX 3600
/* swiss_forbid, swiss_pair: "pairs" has at most this many pairs. */
#define PROTO_SWISS_PAIRS_MAX 64

/* chat: "text" is 1 to PROTO_CHAT_CHARS code points (PROTOCOL.md "Chat");
 * at most PROTO_CHAT_BYTES bytes of UTF-8 then. */
#define PROTO_CHAT_CHARS 140
#define PROTO_CHAT_BYTES (4 * PROTO_CHAT_CHARS)

/* report: "text" is 1 to PROTO_REPORT_CHARS code points, checked as a
 * chat line's (proto_text_check); m->text holds either. */
#define PROTO_REPORT_CHARS 500
#define PROTO_REPORT_BYTES (4 * PROTO_REPORT_CHARS)

/* report: lichess's reasons (m->reason), in its order. */
enum proto_report_reason {
    PROTO_REPORT_CHEAT = 0,
    PROTO_REPORT_STALL,
    PROTO_REPORT_BOOST,
    PROTO_REPORT_ABUSE,
    PROTO_REPORT_SPAM,
    PROTO_REPORT_USERNAME,
    PROTO_REPORT_OTHER,
    PROTO_REPORT_REASONS
};
/* The wire name of a report reason ("cheat", ...); NULL out of range. */
const char *proto_report_reason_name(int reason);
/* mod_action: what a moderator does (m->action), and its wire name
 * ("warn", ...; NULL out of range). */
#define PROTO_MOD_TEXTS 5 /* mod_reports: an entry's newest texts */
enum proto_mod_action {
    PROTO_MOD_WARN = 0,
    PROTO_MOD_MUTE,
    PROTO_MOD_UNMUTE,
    PROTO_MOD_CLOSE,
    PROTO_MOD_ENGINE,         /* marks an engine */
    PROTO_MOD_UNENGINE,       /* ... and takes the mark back */
    PROTO_MOD_CLOSE_ACCOUNT,  /* closes the account */
    PROTO_MOD_REOPEN_ACCOUNT, /* ... and opens it again */
    PROTO_MOD_DISCONNECT,     /* ends the player's connections */
    PROTO_MOD_CHAT_DELETE,    /* mod_chat_delete's (not mod_action's) */
    PROTO_MOD_ACTIONS
};
const char *proto_mod_action_name(int action);

/* A chat room's kind (m->room): a game's players' or spectators' (the
 * PROTO_ROOMS rooms of a game, keyed by m->game), the lobby's (no key)
 * or a tournament's (keyed by m->event). */
enum proto_room {
    PROTO_ROOM_PLAYER = 0,
    PROTO_ROOM_SPECTATOR,
    PROTO_ROOMS,
    PROTO_ROOM_LOBBY = PROTO_ROOMS,
    PROTO_ROOM_EVENT
};

/* A client's "id", kept to be echoed. */
struct proto_id {
    int kind;                   /* 0 absent (or invalid), 1 string, 2 int */
    size_t len;                 /* string: its length in bytes */
    char str[PROTO_ID_MAX + 1]; /* string: may contain no NUL */
    int64_t num;                /* integer */
};

/* A parsed client message. Fields a type does not take are zero/empty. */
struct proto_msg {
    enum proto_type type;
    struct proto_id id;
    char name[PROTO_NAME_MAX + 1];   /* hello: "" when absent */
    char token[PROTO_TOKEN_MAX + 1]; /* hello: "" when absent */
    struct clock_spec clock;         /* seek, invite */
    enum proto_color color;          /* seek, invite: random when absent */
    char game[PROTO_KEY_MAX + 1];    /* game commands */
    char uci[UCI_MAX];               /* move, draw_claim: "" when absent */
    int ply;                         /* move, draw_claim: -1 when absent */
    char fen[FEN_MAX];               /* invite: "" when absent */
    struct board start;              /* invite with fen: the position */
    /* register, login: as sent (checked by the server, not here) */
    char username[PROTO_USERNAME_FIELD_MAX + 1];
    char password[PROTO_PASSWORD_MAX + 1];
    size_t password_len;          /* bytes */
    bool everywhere;              /* logout: every token of the account */
    bool rated;                   /* seek, invite: false when absent */
    bool has_range;               /* seek: rating_range given ... */
    int range_lo, range_hi;       /* ... its bounds, inclusive */
    char seek[PROTO_KEY_MAX + 1]; /* accept: the SID */
    int level;                    /* computer: 1-8 (0 when absent) */
    char to[PROTO_KEY_MAX + 1];   /* challenge: a PID or a name */
    char challenge[PROTO_KEY_MAX + 1]; /* challenge_*: its id */
    int reason;    /* challenge_decline: enum proto_decline (generic when
                   absent); report: enum proto_report_reason */
    int advance_s; /* test_clock: 1..PROTO_TEST_ADVANCE_MAX_S */
    /* settings: the object as compact JSON (PROTO_SETTINGS_MAX) */
    char settings[PROTO_SETTINGS_MAX + 1];
    /* token_create: a description (at most APITOKEN_DESC_MAX bytes; ""
     * when absent) and the scopes' mask (apitoken.h); token_revoke: the
     * token's id (1-PROTO_TOKEN_ID_MAX of A-Z a-z 0-9 _ -) */
    char description[PROTO_DESCRIPTION_MAX + 1];
    unsigned scopes;
    char token_id[PROTO_TOKEN_ID_MAX + 1];
    char event[PROTO_KEY_MAX + 1]; /* arena_*, swiss_*: the event's id */
    int duration_s;                /* arena_create: its length */
    int start_in_s;                /* arena_create: 0 when absent;
                                      swiss_create: -1 (manual start) */
    int rounds, interval_s;        /* swiss_create (interval 0 absent) */
    int page;                      /* arena_watch, swiss_watch: 1 up
                                      (0 absent) */
    bool no_berserk;               /* arena_create: "berserk":false */
    bool no_streaks;               /* arena_create: "streaks":false */
    struct proto_entry entry;      /* arena_, swiss_create: "conditions" */
    enum proto_room room;          /* chat */
    int action;    /* mod_action: enum proto_mod_action; its reason (close:
                   the reports' reason, -1 when absent) is m->reason;
                   mod_chat_delete: PROTO_MOD_CHAT_DELETE */
    int64_t at_ms; /* mod_chat_delete: the line's `at` */
    int result;    /* mod_game: an enum ending_result */
    /* chat, report: checked (proto_text_check) */
    char text[PROTO_REPORT_BYTES + 1];
    /* swiss_forbid, swiss_pair: npairs pairs of PIDs (swiss_pair: the
     * second "" for a bye) */
    char pairs[PROTO_SWISS_PAIRS_MAX][2][PROTO_KEY_MAX + 1];
    int npairs;
};

struct proto_error {
    enum proto_code code;
    char msg[PROTO_MSG_MAX];
};

/* The protocol's name of a code ("bad_json", ...). */
const char *proto_code_name(enum proto_code code);

/* The protocol's name of a type ("hello", ...); "" for PROTO_T_NONE. */
const char *proto_type_name(enum proto_type type);

/* True when s is a valid GID/PID/SID: 1-32 of [A-Za-z0-9_-]. */
bool proto_key_valid(const char *s);

/* The computer as a player (PROTOCOL.md, "Playing the computer"): the
 * seat of level L (1 to PROTO_AI_LEVELS) is PID "stockfish-L", named
 * "Stockfish level L"; every PLAYER with that PID shows "ai":L. */
#define PROTO_AI_LEVELS 8
/* The level of the computer whose PID is pid, 0 for anyone else. */
int proto_ai_level(const char *pid);
/* The PID and name of the computer at level (1 to PROTO_AI_LEVELS) into
 * pid (PROTO_KEY_MAX + 1 bytes) and name (PROTO_NAME_MAX + 1). */
void proto_ai_player(int level, char *pid, char *name);

/* The protocol's name of a room ("player", "spectator", "lobby",
 * "event"). */
const char *proto_room_name(enum proto_room room);

/* Checks a chat line's len bytes at s (PROTOCOL.md "Chat"): valid UTF-8,
 * 1 to PROTO_CHAT_CHARS code points, no control character (C0, DEL, C1,
 * the line and paragraph separators, the bidirectional embeddings,
 * overrides and isolates), not only spaces. 0, or -1 with e set to
 * bad_field and the reason. Any thread. */
int proto_chat_text(const char *s, size_t len, struct proto_error *e);
/* The same check with at most max_chars code points (a report's text). */
int proto_text_check(const char *s, size_t len, size_t max_chars,
                     struct proto_error *e);

/* True when s is a valid player name: 1-20 of [A-Za-z0-9_-]. */
bool proto_name_valid(const char *s);

/* True when s is a valid username: 2-20 of [A-Za-z0-9_-]. */
bool proto_username_valid(const char *s);

/* Characters (UTF-8 code points) in the len bytes at s, which must be
 * UTF-8. */
size_t proto_utf8_chars(const char *s, size_t len);

/* Length of the longest prefix of the len bytes at s that is UTF-8
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF);
 * len when all of it is. */
size_t proto_utf8_prefix(const char *s, size_t len);

/*
 * Parses one text message of len bytes. `authed` says whether the
 * connection has completed hello (or login: before either, only hello,
 * login and ping are accepted). Returns 0 with *m filled, or -1 with *e
 * set to the first failing check in the protocol's order. Even on error,
 * m->type is the message type when it was recognised (for rate limiting)
 * and m->id the id when it was valid (to echo it).
 */
int proto_parse(const char *text, size_t len, bool authed,
                struct proto_msg *m, struct proto_error *e);

/* proto_parse through jansson alone. proto_parse reads the plain move
 * message, the one a game sends most, without it; this is the reference
 * its result must equal for every input (the unit tests and the fuzzer
 * hold it to that). */
int proto_parse_json(const char *text, size_t len, bool authed,
                     struct proto_msg *m, struct proto_error *e);

/* ---- rendering --------------------------------------------------------- */

/* A player, or a seat not yet taken when id is NULL. In a rated game
 * (has_rating) it also shows the player's rating in the game's category,
 * rounded, and whether it is provisional. */
struct proto_player {
    const char *id;
    const char *name;
    bool has_rating;
    long rating;
    bool provisional;
    bool has_account; /* "account" shown (live games, the lobby) ... */
    bool account;     /* ... true for an account, false for a guest */
    bool bot;         /* a bot account: "bot":true */
};

/* A player's rating in one category as shown to players: rounded
 * rating and RD, rated games, and (for the HTTP API's profile only,
 * `results`) its wins, draws and losses. */
struct proto_rating {
    const char *category;
    long rating, rd;
    int games;
    bool provisional;
    bool results;
    int wins, draws, losses;
};

/* The player a connection speaks for, as welcome and registered show it:
 * {"id","name","account"} and, for an account, "ratings" with one entry
 * per category it has played rated (n_ratings of them). For an account,
 * welcome and registered also carry "settings": the object `settings`
 * holds as JSON text (a stored one, valid), or null when it is NULL
 * (none stored). The HTTP API's profile never shows them. */
struct proto_me {
    const char *id;
    const char *name;
    bool account;
    const struct proto_rating *ratings;
    size_t n_ratings;
    const char *settings;
    bool moderator; /* welcome: the player's "moderator":true (absent when
                       false) */
};

/* A rated game's rating changes: each colour's rating before and after
 * it, rounded ([0] white, [1] black). */
struct proto_rating_change {
    long before[2], after[2];
};

struct proto_clocks {
    int64_t white_ms, black_ms;
    int running; /* colour, or -1 for null */
};

/* The tournament a live game is a game of (state's "event"). */
struct proto_event_link {
    const char *kind; /* "arena" or "swiss" (a static string); NULL: none */
    char id[PROTO_KEY_MAX + 1];
    char name[PROTO_NAME_MAX + 1];
    bool berserk; /* its players may berserk (an arena's rule) */
};

/* Everything `state` carries; also the body of GET /api/games/GID. */
struct proto_state {
    const char *game;
    struct proto_player white, black;
    struct clock_spec clock;
    const char *initial_fen;
    const char (*moves)[UCI_MAX]; /* n entries */
    const char (*san)[SAN_MAX];   /* n entries */
    const int64_t *lags;          /* n entries: each move's lag credit */
    size_t n;
    const char *fen;
    int ply;
    int to_move; /* colour */
    bool check;
    struct proto_clocks clocks;
    int64_t first_move_ms; /* -1 for null */
    const char *status;    /* "waiting", "started", "ended" */
    int draw_offer;        /* colour, or -1 for null */
    int takeback;          /* colour whose request is pending, or -1 */
    bool berserk[2];       /* an arena game's side went berserk */
    int draw_from_ply;     /* no draw by agreement before it; 0: none */
    const struct proto_event_link *event; /* its tournament; NULL: none */
    int64_t gone_ms[2];                   /* -1 for null */
    int64_t rtt_ms[2]; /* each seat's round trip as last measured, 0: null */
    size_t watchers;   /* the game's spectators now (0 for a stored one) */
    const char (*legal)[UCI_MAX]; /* n_legal entries, sorted */
    size_t n_legal;
    bool claimable;
    const char (*claim_moves)[UCI_MAX];
    size_t n_claim;
    const char *result; /* NULL while live */
    const char *reason; /* NULL while live */
    bool rated;
    /* a rated game that ended: its changes (NULL: none shown) */
    const struct proto_rating_change *change;
    /* why each side could not mate ([0] white, [1] black), for an ending
     * that has a proof (NULL: none) */
    const struct dead_proof *proof;
    /* the game's opening (opening.h), or both NULL: none */
    const char *opening_eco, *opening_name;
    /* HTTP API only (when api is true): Unix epoch ms, 0 for null. */
    bool api;
    int64_t created_ms, started_ms, ended_ms;
};

/* `moved`: the move that made ply `ply`. */
struct proto_moved {
    const char *game;
    int ply;
    const char *uci, *san;
    const struct board *board; /* after the move: its FEN */
    bool check;
    struct proto_clocks clocks;
    int64_t first_move_ms; /* -1 for null */
    int64_t lag_ms;        /* the mover's lag credit (0: none) */
    int64_t rtt_ms;        /* the mover's round trip (0: null) */
    int draw_offer;        /* colour, or -1 */
    const move_t *legal;   /* rendered as UCI text, in this order */
    size_t n_legal;
    bool claimable;
    const move_t *claim_moves;
    size_t n_claim;
    /* the game's opening (opening.h) when this move changed it, or both
     * NULL: no "opening" field */
    const char *opening_eco, *opening_name;
};

/* One finished game in a player's list (GET /api/players/PID/games). */
struct proto_game_summary {
    const char *game;
    struct proto_player white, black;
    struct clock_spec clock;
    const char *result, *reason;
    int64_t ended_ms;
    bool rated;
    bool changed;                      /* rated, with a rating change: */
    struct proto_rating_change change; /* ... the change */
    const char *eco, *opening; /* the opening reached; NULL: none named */
    bool analysed;             /* a computer analysis of it is done */
};

/* One point of a rating history (GET /api/players/PID/ratings/CAT). */
struct proto_rating_point {
    int64_t ms;
    long rating, rd;
};

/* One entry of a leaderboard (GET /api/leaderboard/CAT). */
struct proto_leader {
    const char *id, *name;
    long rating, rd;
    int games;
};

/* A colour's name: "white" or "black". */
const char *proto_color_name(int color);

char *proto_render_error(enum proto_code code, const char *msg,
                         const struct proto_id *id);
char *proto_render_welcome(const struct proto_me *p, const char *token,
                           const char *const *games, size_t n,
                           const struct proto_id *id);
/* {"t":"registered","player":ME,"token":TOKEN} */
char *proto_render_registered(const struct proto_me *p, const char *token,
                              const struct proto_id *id);
/* {"t":"logged_out"} */
char *proto_render_logged_out(const struct proto_id *id);
/* An API token as listed (never its text): its id, description, scopes
 * (apitoken.h's mask) and creation time. */
struct proto_api_token {
    const char *token_id, *description;
    unsigned scopes;
    int64_t created_ms;
};
/* {"t":"token_created","token_id":..,"token":TEXT,"description":..,
 * "scopes":[..],"created_ms":N}: the only message that shows TEXT. */
char *proto_render_token_created(const struct proto_api_token *t,
                                 const char *text, const struct proto_id *id);
/* {"t":"tokens","tokens":[{token_id, description, scopes, created_ms}]} */
char *proto_render_tokens(const struct proto_api_token *v, size_t n,
                          const struct proto_id *id);
/* {"t":"token_revoked","token_id":ID} */
char *proto_render_token_revoked(const char *token_id,
                                 const struct proto_id *id);
/* The HTTP API: POST /api/token/test's object, token text -> {"scopes":
 * "a,b","userId":..,"expires":null} or null (user NULL). */
struct proto_token_test {
    const char *text;    /* as sent */
    const char *user_id; /* NULL: no such token */
    unsigned scopes;
};
char *proto_render_token_test(const struct proto_token_test *v, size_t n);
/* GET /api/account: lichess's fields that apply (id, username,
 * createdAt, seenAt, perfs, url). */
struct proto_account {
    const char *id, *username, *url;
    int64_t created_ms;
    const struct proto_rating *ratings;
    size_t n_ratings;
    bool bot; /* a bot account: "title":"BOT" */
};
char *proto_render_account(const struct proto_account *a);

/* {"t":"settings_saved"}: a settings message's answer. */
char *proto_render_settings_saved(const struct proto_id *id);
/* {"t":"settings_changed","settings":S}: S, the JSON object text another
 * connection of the account saved (valid JSON; NULL when it is not). */
char *proto_render_settings_changed(const char *settings);
char *proto_render_pong(const struct proto_id *id);
char *proto_render_seeking(const char *sid, const struct proto_id *id);
char *proto_render_seek_cancelled(const struct proto_id *id);
/* {"t":"seek_cancelled","reason":"idle"}: the connection's seek went for
 * want of activity (no id: nobody asked). */
char *proto_render_seek_expired(void);
char *proto_render_invited(const char *gid, const struct proto_id *id);
char *proto_render_shutdown(void);
/* {"t":"store_stall","stalled_ms":N} (resumed false) or
 * {"t":"store_resumed","stalled_ms":N}: the database has confirmed no
 * write for N ms / confirms again after N ms. */
char *proto_render_store_stall(bool resumed, int64_t stalled_ms);
/* {"t":"cluster_lost"} (up false: this node lost Redis, so games of other
 * nodes are out of reach) or {"t":"cluster_back"}. */
char *proto_render_cluster(bool up);
char *proto_render_game_start(const char *gid, const struct proto_player *w,
                              const struct proto_player *b,
                              const struct clock_spec *clock, bool rated,
                              int you);
char *proto_render_state(const struct proto_state *s,
                         const struct proto_id *id);
/* `moved` is written, not malloc'ed (it goes out on every move, into a
 * buffer shared by its recipients): proto_moved_size(m) bytes at out are
 * enough for proto_write_moved(m, out), which writes the text and its
 * terminator there and returns the text's length. */
size_t proto_moved_size(const struct proto_moved *m);
size_t proto_write_moved(const struct proto_moved *m, char *out);
/* {"t":"game_end",...} with the result's and the reason's wire names;
 * change (NULL: none) adds "ratings":{"white":{"before":R,"after":R},
 * "black":{...}}; proof (NULL: none; else [0] white's, [1] black's) adds
 * "proof", why the sides could not mate. */
char *proto_render_game_end(const char *gid, enum ending_result result,
                            enum ending_reason reason,
                            const struct proto_rating_change *change,
                            const struct dead_proof *proof);
/* draw_offered / draw_declined / rematch_offered / takeback_requested /
 * takeback_declined ("type"), with the
 * colour that sent it. */
char *proto_render_draw(const char *type, const char *gid, int color);
/* {"t":"time_given","game":GID,"color":C,"ms":MS,"clocks":{...}}: C's
 * clock got MS more (give_time); clocks as they stand now. */
char *proto_render_time_given(const char *gid, int color, int64_t ms,
                              const struct proto_clocks *clocks);
/* {"t":"berserk","game":GID,"color":C,"clocks":{...}}: C went berserk
 * (an arena game: half its time, no increment). */
char *proto_render_berserk(const char *gid, int color,
                           const struct proto_clocks *clocks);
/* {"t":"taken_back","game":GID,"color":C,"ply":N}: C's takeback request
 * was accepted; the game is back at ply N (a `state` follows). */
char *proto_render_taken_back(const char *gid, int color, int ply);
/* {"t":"rematch_declined","game":GID,"color":C|null,"reason":R}: the
 * rematch offer on gid is off; color -1 renders null. */
char *proto_render_rematch_declined(const char *gid, int color,
                                    const char *reason);
char *proto_render_opponent_gone(const char *gid, int color,
                                 int64_t grace_ms);
char *proto_render_opponent_back(const char *gid, int color);

/* One of a player's started games, as `my_games` lists it. */
struct proto_my_game {
    const char *game;
    int color;                    /* the player's */
    struct proto_player opponent; /* as in game_start */
    struct clock_spec clock;
    int ply;
    bool your_turn;
    int64_t left_ms; /* what the side to move has for this turn */
};

/* {"t":"my_games","games":[...]} of g[0..n-1], in that order. */
char *proto_render_my_games(const struct proto_my_game *g, size_t n,
                            const struct proto_id *id);
/* One chat line as `chat` and `chat_history` show it. */
struct proto_chat_line {
    const char *pid, *name, *text;
    int64_t at_ms; /* Unix epoch ms */
};
/* {"t":"chat","game":GID,"room":R,"pid":P,"name":N,"text":T,"at":MS}; key
 * is the game's GID for a game's room, the event's id ("event":EID) for
 * PROTO_ROOM_EVENT, none for the lobby's (key ignored). */
char *proto_render_chat(const char *key, enum proto_room room,
                        const struct proto_chat_line *l);
/* {"t":"chat_history","game":GID,"room":R,"lines":[{"pid","name","text",
 * "at"}...]}, oldest first; key as proto_render_chat's. */
char *proto_render_chat_history(const char *key, enum proto_room room,
                                const struct proto_chat_line *l, size_t n);
/* {"t":"chat_muted","until":MS}: the player's chat lines are refused
 * until MS (Unix epoch ms). */
char *proto_render_chat_muted(int64_t until_ms);

/* One of an account's blocks as `blocks` lists it. */
struct proto_block {
    const char *pid, *name;
    int64_t at_ms;
};
/* {"t":"blocks","blocks":[{"pid","name","at"}...]} (oldest first). */
char *proto_render_blocks(const struct proto_block *v, size_t n,
                          const struct proto_id *id);
/* What a reader who hides some speakers (hide(ctx, pid) true) gets of
 * the message text (len bytes): 0, text as it is (not a chat line, or
 * none hidden); 1, nothing (a hidden speaker's chat line, or a history
 * of theirs only); 2, *out instead (malloc'ed: a chat_history without
 * their lines). Any thread. */
int proto_chat_filter(const char *text, size_t len,
                      bool (*hide)(void *ctx, const char *pid), void *ctx,
                      char **out);
/* The lobby snapshot text (len bytes, proto_render_lobby's) without the
 * seeks whose player's id hide(ctx, id) hides: a new text (malloc'ed),
 * or NULL when it hides none (or text is not one, or out of memory).
 * Any thread. */
char *proto_lobby_filter(const char *text, size_t len,
                         bool (*hide)(void *ctx, const char *pid), void *ctx);
/* {"t":"reported","pid":P,"name":N,"reason":R}. */
char *proto_render_reported(const char *pid, const char *name,
                            const char *reason, const struct proto_id *id);
/* One entry of the moderators' queue (mod_reports), with its newest
 * reports' texts. */
struct proto_mod_text {
    const char *by, *text;
    int64_t at_ms;
};
struct proto_mod_report {
    const char *pid, *name, *reason;
    int score, atoms;
    int64_t last_ms;
    struct proto_mod_text texts[PROTO_MOD_TEXTS];
    size_t n_texts;
};
/* {"t":"mod_reports","reports":[{"pid","name","reason","score","atoms",
 * "last","texts":[{"by","text","at"}...]}...]}: the queue, in the order
 * given. */
char *proto_render_mod_reports(const struct proto_mod_report *v, size_t n,
                               const struct proto_id *id);
/* {"t":"mod_done","action":A,"pid":P,"name":N,"until":MS|null}: the
 * moderator's action was stored (pid and name NULL: null, a
 * maintenance's). */
char *proto_render_mod_done(const char *action, const char *pid,
                            const char *name, int64_t until_ms,
                            const struct proto_id *id);
/* mod_player: a chat line of the player's, an action on it. */
struct proto_mod_line {
    const char *game, *room, *text;
    int64_t at_ms;
};
struct proto_mod_past {
    const char *action, *by, *reason, *text; /* reason "": none */
    int64_t until_ms, at_ms;
};
/* {"t":"mod_player","pid","name","muted_until":MS|null,"engine":B,
 * "closed":B,"chat":[{"game","room","text","at"}...],"actions":[{"action",
 * "by","reason"?,"text","until":MS|null,"at"}...]}: newest first. */
char *proto_render_mod_player(const char *pid, const char *name,
                              int64_t muted_until, bool engine, bool closed,
                              const struct proto_mod_line *chat, size_t nc,
                              const struct proto_mod_past *acts, size_t na,
                              const struct proto_id *id);
/* {"t":"maintenance","at":MS|null,"text":T,"by":MODERATOR}: a
 * maintenance announced for at_ms (0: the last one cancelled, "at"
 * null). */
char *proto_render_maintenance(int64_t at_ms, const char *text,
                               const char *by);
/* {"t":"mod_notice","action":A,"text":WHY,"by":MODERATOR,"until":MS|null,
 * "at":MS}: a moderator's action on the player who reads it. */
char *proto_render_mod_notice(const char *action, const char *text,
                              const char *by, int64_t until_ms,
                              int64_t at_ms);
/* {"t":"watchers","game":GID,"n":N}: the game has N spectators now. */
char *proto_render_watchers(const char *gid, size_t n);
/* One open seek in a lobby snapshot: its SID, the seeker (with the
 * rating of the seek's category when the seek is rated), the clock, the
 * colour the seeker wants, rated, and the rating_range when it has one. */
struct proto_lobby_seek {
    const char *sid;
    struct proto_player player;
    struct clock_spec clock;
    int color; /* enum proto_color */
    bool rated;
    bool has_range;
    int lo, hi;
};

/* One live game in a lobby snapshot: players as in game_start. */
struct proto_lobby_game {
    const char *game;
    struct proto_player white, black;
    struct clock_spec clock;
    bool rated;
    int ply;
};

/* {"t":"lobby","seeks":[{"seek","player","clock","color","rated",
 * "rating_range"?}...],"games":[{"game","white","black","clock","rated",
 * "ply"}...]}, in the order given. */
char *proto_render_lobby(const struct proto_lobby_seek *seeks, size_t ns,
                         const struct proto_lobby_game *games, size_t ng);
/* A challenge (PROTOCOL.md, "Challenges"), as both of its players and,
 * later, the HTTP API and bots see it. */
struct proto_challenge {
    const char *id;
    const char *status; /* "created", "accepted", "declined", "canceled",
                           "expired" */
    struct proto_player challenger, dest;
    struct clock_spec clock;
    int color; /* enum proto_color: the challenger's wish */
    bool rated;
    int decline;        /* enum proto_decline when declined, else -1 */
    const char *game;   /* accepted: the game's GID, else NULL */
    int64_t expires_ms; /* Unix ms it lapses at, 0: not lapsing (its
                           challenger is connected) */
};

/* The key of reason r ("generic", "tooFast", ...), and the sentence
 * lichess shows with it. NULL for a reason out of range. */
const char *proto_decline_name(int r);
const char *proto_decline_text(int r);
/* The reason whose key is s, or -1. */
int proto_decline_parse(const char *s);
/* {"t":"challenge","challenge":C}: a challenge made or changed. */
char *proto_render_challenge(const struct proto_challenge *c,
                             const struct proto_id *id);
/* {"t":"challenges","in":[C...],"out":[C...]}: the pending challenges to
 * and from the player. */
char *proto_render_challenges(const struct proto_challenge *in, size_t nin,
                              const struct proto_challenge *out, size_t nout,
                              const struct proto_id *id);
/* The challenger's side in c's game (0 white, 1 black): its wish, or
 * for a random colour a coin its id names (a random id: a fair coin),
 * decided when the challenge is made, as lichess's finalColor. */
int proto_challenge_side(const struct proto_challenge *c);
/* c as lichess's ChallengeJson (lichess-org/api, lichess-api.yaml): id,
 * url (base_url "/" id), status, challenger, destUser, variant, rated,
 * speed, timeControl, color, finalColor (the challenger's side:
 * final_color, or when it is < 0 proto_challenge_side's), perf,
 * direction ("in" when incoming), and declineReason/declineReasonKey
 * when declined. For the HTTP API and the bots that will serve the same
 * object. */
char *proto_render_challenge_lichess(const struct proto_challenge *c,
                                     const char *base_url, bool incoming,
                                     int final_color);

/* HTTP API: {"error":code}. */
char *proto_render_api_error(const char *code);
/* HTTP API: {"games":[...],"next":GID|null}. */
char *proto_render_game_list(const struct proto_game_summary *games, size_t n,
                             const char *next);
/* HTTP API: {"id","name","account","ratings":{CAT:{"rating","rd",
 * "games","provisional","wins","draws","losses"}...},"wins","draws",
 * "losses"} (the sums over the categories). */
char *proto_render_profile(const struct proto_me *p);
/* HTTP API: {"player":PID,"category":CAT,"points":[{"ms","rating","rd"}
 * ...]}. */
char *proto_render_rating_history(const char *pid, const char *category,
                                  const struct proto_rating_point *points,
                                  size_t n);
/* HTTP API: {"category":CAT,"players":[{"id","name","rating","rd",
 * "games"}...]}. */
char *proto_render_leaderboard(const char *category,
                               const struct proto_leader *players, size_t n);
/* HTTP API: {"status":"ok",...} for /healthz. */
char *proto_render_health(bool ok, int64_t live_games, int64_t connections);

#endif
