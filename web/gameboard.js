// gameboard.js - the game page's board: the position it shows (the live
// one, with our move on its way, or the one browsed to), whether it takes
// moves, and what a move made on it does: sent on our turn, queued as a
// premove on the opponent's. The drags, clicks, keys and the promotion
// picker are the widget's (board.js).

import { Board } from './board.js';
import {
    applyUci, kingSquare, parseFen, squareIndex, squareName,
} from './position.js';
import * as W from './words.js';

const $ = (id) => document.getElementById(id);

// Premoves: on the opponent's turn (or while our own move is on its way)
// the player may queue up to `premoves.max` moves. The board offers them
// by piece geometry only (this is no rules code); each is sent the moment
// the opponent's `moved` makes it our turn, if the server's new `legal`
// list has it, and dropped with a note (with the rest of the queue) if
// not. A pawn premoved to the last rank becomes a queen. With the queue
// full, a new premove replaces the last one queued (as on lichess: with
// one premove, clicking another piece starts a new one instead of only
// cancelling the old). The settings page may change the count with
// setPremoveCount (0 turns premoves off).
export const premoves = { max: 1 };

// A move of ours unanswered this long is resynced (`sync`): the server
// answers a move at once, or refuses it, so silence means the answer was
// lost (PROTOCOL.md, "Advice to clients").
export const MOVE_ANSWER_MS = 4000;

export function setPremoveCount(n) {
    premoves.max = Math.max(0, Math.min(10, Math.floor(Number(n)) || 0));
}

export class GameBoard {
    // view: the GameView whose game this board shows. A move made on the
    // board goes through view.playMove (app.js may wrap it).
    constructor(view) {
        this.view = view;
        this.board = new Board($('board'), (uci) => view.playMove(uci));
        this.board.onCancelPremove = () => this.cancelPremoves();
        this.shown = null;      // the position drawn last (or null)
    }

    // The game shown (the view's copy of the server's state), its GID and
    // the page's context: the view's, read when used.
    get g() { return this.view.g; }
    get gid() { return this.view.gid; }
    get ctx() { return this.view.ctx; }

    // The board's move: played now on our turn, queued as a premove on
    // the opponent's (or while our move is on its way).
    playMove(uci) {
        const g = this.g;
        if (!g)
            return;
        if (this.premoving()) {
            if (g.premoves.length >= premoves.max)
                g.premoves = g.premoves.slice(0, premoves.max - 1);
            g.premoves.push(uci);
            this.view.render();
            return;
        }
        if (g.pendingMove || g.toMove !== g.you)
            return;
        this.sendMove(uci);
        // Slides the piece (the board skips it after a drag).
        this.view.render([squareIndex(uci.slice(0, 2)),
                          squareIndex(uci.slice(2, 4))]);
    }

    // Sends our move at once (never a dialog while our clock runs): as a
    // draw claim when the "claim with my move" switch is on and the server
    // says the move allows one. Returns whether it went out.
    sendMove(uci) {
        const g = this.g;
        const claim = g.claimMoves.includes(uci) &&
            $('claim-with-move').checked;
        const msg = { t: claim ? 'draw_claim' : 'move', game: this.gid, uci,
                      ply: g.ply };
        const id = this.ctx.send(msg, msg);
        if (!id)
            return false;
        const pending = { uci, ply: g.ply, id };
        g.pendingMove = pending;
        // An answer lost on its way (a server paused or cut off from the
        // others) must not leave the board waiting: after a few seconds
        // the page asks for the game's state, which settles the move.
        setTimeout(() => this.view.moveUnanswered(pending), MOVE_ANSWER_MS);
        return true;
    }

    // True while a board move would be a premove.
    premoving() {
        const g = this.g;
        return !!(g && g.you && g.status === 'started' && premoves.max > 0 &&
                  g.viewPly === null && this.ctx.online() &&
                  (g.toMove !== g.you || g.pendingMove));
    }

    // On our turn, sends the first queued premove if the server lists it
    // as legal; drops the queue with a note if not. Returns whether a
    // move went out.
    playPremove() {
        const g = this.g;
        if (!g || !g.premoves.length || g.status !== 'started' ||
            g.toMove !== g.you || g.pendingMove)
            return false;
        const uci = g.premoves[0];
        if (!g.legal.includes(uci)) {
            g.premoves = [];
            this.ctx.toast(`Premove ${uci.slice(0, 2)}-${uci.slice(2, 4)
            } is not legal now: dropped.`, 'info');
            return false;
        }
        if (!this.sendMove(uci)) {
            g.premoves = [];
            return false;
        }
        g.premoves.shift();
        return true;
    }

    // Drops the queued premoves (the board's right-click or Escape).
    cancelPremoves() {
        const g = this.g;
        if (!g || !g.premoves.length)
            return;
        g.premoves = [];
        this.view.render();
    }

    // The position after `ply` half-moves (replayed once, then kept in
    // g.positions).
    positionAt(ply) {
        const g = this.g;
        if (!g.positions || g.positions.length > g.moves.length + 1 ||
            g.positions.initialFen !== g.initialFen) {
            g.positions = [parseFen(g.initialFen).board];
            g.positions.initialFen = g.initialFen;
        }
        while (g.positions.length <= ply) {
            const i = g.positions.length;
            g.positions.push(applyUci(g.positions[i - 1], g.moves[i - 1]));
        }
        return g.positions[ply];
    }

    // Draws the game's position, its last move, check, and the moves the
    // board offers (the legal ones, or candidate premoves), in the
    // orientation the player sees.
    draw(animate) {
        const g = this.g;
        const online = this.ctx.online();
        // A player sees their own side at the bottom; someone invited, the
        // side they would take.
        const base = g.you ? g.you
            : g.status === 'waiting' && g.white && !g.black ? 'black'
                : 'white';
        const orientation = this.view.flipped ? W.other(base) : base;
        const live = g.viewPly === null;
        let board, lastMove = null, check = -1;
        if (live) {
            board = parseFen(g.fen).board;
            let last = g.moves[g.ply - 1];
            if (g.pendingMove) {
                board = applyUci(board, g.pendingMove.uci);
                last = g.pendingMove.uci;
            } else if (g.check) {
                check = kingSquare(board, g.toMove[0]);
            }
            if (last)
                lastMove = [squareIndex(last.slice(0, 2)),
                            squareIndex(last.slice(2, 4))];
        } else {
            board = this.positionAt(g.viewPly);
            const last = g.moves[g.viewPly - 1];
            if (last) {
                lastMove = [squareIndex(last.slice(0, 2)),
                            squareIndex(last.slice(2, 4))];
                if (/[+#]$/.test(g.san[g.viewPly - 1] || ''))
                    check = kingSquare(board, g.viewPly % 2 ===
                        (parseFen(g.initialFen).turn === 'w' ? 0 : 1)
                        ? 'w' : 'b');
            }
        }
        const myTurn = g.status === 'started' && g.you === g.toMove;
        const premoving = this.premoving();
        const interactive = live && online && (premoving ||
                                               myTurn && !g.pendingMove);
        const legal = premoving ? this.premoveMoves(board) : g.legal;
        this.board.set({ board, orientation, lastMove, check, legal,
                         interactive, animate, premove: premoving,
                         premoves: live ? g.premoves : [] });
        this.shown = board;     // the material difference counts this one
        const section = this.view.section;
        section.classList.toggle('browsing', !live);
        section.classList.toggle('my-turn', interactive && !premoving);
    }

    // The premoves the board offers on `board` (the live position, with
    // our move on its way): those from the position after the queued
    // ones, or, with the queue full, after all but the last (a new one
    // replaces it).
    premoveMoves(board) {
        const g = this.g;
        const keep = Math.min(g.premoves.length, premoves.max - 1);
        let after = board;
        for (const uci of g.premoves.slice(0, keep))
            after = applyUci(after, uci);
        return premoveCandidates(after, g.you[0]);
    }

    // The moves a move typed now may be (keymove.js): the server's legal
    // list on our turn, the candidate premoves on the opponent's; the
    // position they start from; null when the board takes no move.
    movesNow() {
        const g = this.g;
        if (!g || g.viewPly !== null || !this.ctx.online())
            return null;
        if (this.premoving()) {
            const board = parseFen(g.fen).board;
            const live = g.pendingMove ? applyUci(board, g.pendingMove.uci)
                : board;
            const keep = Math.min(g.premoves.length, premoves.max - 1);
            let after = live;
            for (const uci of g.premoves.slice(0, keep))
                after = applyUci(after, uci);
            return { board: after, legal: this.premoveMoves(live) };
        }
        if (g.status !== 'started' || g.you !== g.toMove || g.pendingMove)
            return null;
        return { board: parseFen(g.fen).board, legal: g.legal };
    }

    // No game to show yet: an empty board that takes no moves.
    clear() {
        this.board.set({ board: new Array(64).fill(null),
                         orientation: 'white', interactive: false });
        this.shown = null;
    }
}

// The premoves of `color` ('w', 'b') on `board` by piece geometry alone:
// blockers, checks and whose piece stands on the target are ignored except
// that a piece never lands on one of its own side. A pawn's move to the
// last rank is a queen's promotion.
function premoveCandidates(board, color) {
    const out = [];
    const add = (from, f, r) => {
        if (f < 0 || f > 7 || r < 0 || r > 7)
            return;
        const to = r * 8 + f;
        const there = board[to];
        if (there && there[0] === color)
            return;
        const promo = board[from][1] === 'P' && (r === 7 || r === 0)
            ? 'q' : '';
        out.push(squareName(from) + squareName(to) + promo);
    };
    const lines = { R: [[1, 0], [-1, 0], [0, 1], [0, -1]],
                    B: [[1, 1], [1, -1], [-1, 1], [-1, -1]] };
    lines.Q = lines.R.concat(lines.B);
    for (let sq = 0; sq < 64; sq++) {
        const code = board[sq];
        if (!code || code[0] !== color)
            continue;
        const f = sq % 8, r = Math.floor(sq / 8), kind = code[1];
        if (kind === 'P') {
            const dir = color === 'w' ? 1 : -1;
            add(sq, f, r + dir);
            if (r === (color === 'w' ? 1 : 6))
                add(sq, f, r + 2 * dir);
            add(sq, f - 1, r + dir);
            add(sq, f + 1, r + dir);
        } else if (kind === 'N') {
            for (const [df, dr] of [[1, 2], [2, 1], [2, -1], [1, -2],
                                    [-1, -2], [-2, -1], [-2, 1], [-1, 2]])
                add(sq, f + df, r + dr);
        } else if (kind === 'K') {
            for (const [df, dr] of lines.Q)
                add(sq, f + df, r + dr);
            if (f === 4 && r === (color === 'w' ? 0 : 7)) {
                add(sq, 6, r);
                add(sq, 2, r);
            }
        } else {
            for (const [df, dr] of lines[kind])
                for (let i = 1; i < 8; i++)
                    add(sq, f + i * df, r + i * dr);
        }
    }
    return out;
}
