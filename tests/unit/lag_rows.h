/*
 * lag_rows.h - the rows the migrations of the lag totals (SQLite's 0009,
 * PostgreSQL's pg/0004) are tested on, in SQL both accept: two finished
 * games and a live one between players pidW and pidB (each test inserts
 * those in its own way), and the finished games' moves. The totals they
 * must give: w1 (White started) White 350 ms, Black 40; b1 (Black
 * started) White 30, Black 70; live (its moves in the journal) none.
 */
#ifndef TESTS_UNIT_LAG_ROWS_H
#define TESTS_UNIT_LAG_ROWS_H

#define LAG_ROWS_GAMES                                                     \
    "INSERT INTO games (gid, white_pid, black_pid, per_move, initial_s, "  \
    "increment_s, initial_fen, status, result, reason, created_ms, "       \
    "ended_ms) VALUES "                                                    \
    "('w1', 'pidW', 'pidB', 0, 60, 0, 'rnbqkbnr/pppppppp/8/8/8/8/"         \
    "PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'ended', '1-0', 'resignation', 1, "  \
    "2), "                                                                 \
    "('b1', 'pidW', 'pidB', 0, 60, 0, '4k3/8/8/8/8/8/4P3/4K3 b - - 0 1', " \
    "'ended', '1/2-1/2', 'stalemate', 3, 4), "                             \
    "('live', 'pidW', 'pidB', 0, 60, 0, 'rnbqkbnr/pppppppp/8/8/8/8/"       \
    "PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'started', NULL, NULL, 5, NULL)"

#define LAG_ROWS_MOVES                                                     \
    "INSERT INTO moves (gid, ply, uci, san, white_ms, black_ms, wall_ms, " \
    "lag_ms) VALUES "                                                      \
    "('w1', 1, 'e2e4', 'e4', 1, 1, 1, 0), "                                \
    "('w1', 2, 'e7e5', 'e5', 1, 1, 1, 0), "                                \
    "('w1', 3, 'g1f3', 'Nf3', 1, 1, 1, 150), "                             \
    "('w1', 4, 'b8c6', 'Nc6', 1, 1, 1, 40), "                              \
    "('w1', 5, 'f1c4', 'Bc4', 1, 1, 1, 200), "                             \
    "('b1', 1, 'e8d7', 'Kd7', 1, 1, 1, 70), "                              \
    "('b1', 2, 'e2e4', 'e4', 1, 1, 1, 30)"

#endif
