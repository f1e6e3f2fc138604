/*
 * rows.h - a game's stored rows: the game row, its moves and the ratings
 * its end writes, as the game layer builds them and the store
 * (store/store.h) copies, writes and reads them back. Plain data: no
 * function here, and nothing of game/ calls the store; the hub hands
 * these rows from one to the other.
 * Every string is NUL-terminated in its fixed array.
 */
#ifndef SERVER_GAME_ROWS_H
#define SERVER_GAME_ROWS_H

#include <stdint.h>

/* Clock settings as the protocol gives them. */
struct store_clock {
    int per_move;    /* 0 = Fischer, 1 = per move */
    int initial_s;   /* Fischer */
    int increment_s; /* Fischer */
    int per_move_s;  /* per move */
};

struct store_move {
    int ply; /* 1-based: the ply this move produced */
    char uci[6];
    char san[10];
    int64_t white_ms; /* remaining after the move */
    int64_t black_ms;
    int64_t wall_ms; /* Unix epoch ms when the move was played */
    int64_t lag_ms;  /* lag credit given back to the mover's clock */
};

/* The journal rows that are not moves, by their uci (game_takeback.c):
 * an accepted takeback (ply: the first ply taken back), time given
 * (ply: the plies played + 1; san: the colour that got it) and a berserk
 * (ply: the plies played + 1; san: the colour that went berserk). All
 * carry the clocks they left. A live game's journal is read in the order it
 * was written, so a takeback's row follows the moves it takes back. */
#define STORE_JOURNAL_UNDO "undo"
#define STORE_JOURNAL_GIVE "give"
#define STORE_JOURNAL_BERSERK "bsrk"

struct store_game {
    char gid[33];
    char white_pid[33], white_name[21]; /* "" for an empty seat */
    char black_pid[33], black_name[21];
    char creator_pid[33]; /* "" for games from seeks */
    struct store_clock clock;
    char initial_fen[94]; /* FEN_MAX of common/chess/board.h */
    char status[8];       /* "waiting", "started", "ended" */
    char result[8];       /* "" while live, else "1-0", "0-1", "1/2-1/2", "*"
                            (ending_result_name) */
    char reason[32];      /* "" while live, else a protocol reason (the wire
                            name of common/ending.h's table) */
    char final_fen[94];   /* FEN_MAX */
    char draw_offer[6];   /* "", "white" or "black" */
    int64_t created_ms, started_ms, ended_ms; /* 0 = not yet */
    int64_t white_ms, black_ms; /* remaining, as of the last journal row */
    int rated;                  /* 0 casual, 1 rated */
    /* A rated game that ended (rated and result set; else not stored):
     * each player's rating before and after it, full precision, and RD
     * before it (rating_before[0] white's, [1] black's). */
    double rating_before[2], rating_after[2], rd_before[2];
    /* The lag credit each side's moves received in all ([0] White's, [1]
     * Black's): the sums of its moves' lag_ms (0009_lag_totals.sql). */
    int64_t lag_ms[2];
    /* The opening the game reached (common/opening.h, as its PGN's [ECO]
     * and [Opening]): "" when none is named (0010_opening.sql). */
    char eco[4];
    char opening[112];
    /* 1 when the game has a finished computer analysis (0011_analysis.sql);
     * set by store_list_player_games only. */
    int analysed;
};

/* Ratings (migrations/0004_ratings.sql). A player's rating in one
 * category, in full precision; an account without a rated game in the
 * category has no row (the caller uses rating_start's values). */
struct store_rating {
    char pid[33];
    char category[12]; /* "bullet", "blitz", "rapid", "classical",
                          "per_move" (rating_category_name) */
    double rating, rd, vol;
    int games, wins, draws, losses;
    int64_t last_ms; /* Unix ms the last rated game in it ended; 0: none */
};

#endif
