/*
 * board.h - the analysis board's HTTP API (PROTOCOL.md section 9, "Analysis
 * board"): POST /api/board/fen answers a position's legal moves with their
 * SAN and the FEN each leads to; POST /api/board/pgn answers a PGN's first
 * game as a move tree with each move's UCI, SAN and FEN. Nothing is
 * stored; each answer is computed on the loop from the request's body
 * alone (at most FRAMES_BODY_MAX bytes: a bounded cost, see board.c).
 */
#ifndef HUB_BOARD_H
#define HUB_BOARD_H

#include <stdbool.h>

#include "hub/http.h"

/* Answers q into *r when q is one of the board's routes and returns true;
 * false, leaving *r alone, for any other path. Loop thread. */
bool board_http(const struct http_request *q, struct http_reply *r);

#endif
