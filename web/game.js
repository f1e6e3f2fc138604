// game.js - the game page: one game (played, joined, or watched) with its
// board, clocks, move list, actions and end.
//
// The server is the only authority. This view keeps a copy of the last
// `state` plus the `moved`s since, and resyncs (`sync`) whenever that copy
// could be wrong: after a reconnection, a gap in the plies, a rejected move.
// Clocks are counted down between messages for display only; every server
// message replaces the numbers.
//
// Rematch offers (PROTOCOL.md section 7) are kept by GID in
// this.rematches, apart from this.g: every `state` replaces this.g and
// none tells of an offer, and an offer may come while another page shows.

import { Board } from './board.js';
import {
    applyUci, kingSquare, materialDiff, moveNumber, parseFen, squareIndex,
    squareName,
} from './position.js';
import { lowTimeMs } from './sound.js';
import * as W from './words.js';

const $ = (id) => document.getElementById(id);
const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const REMATCH_GAMES = 100;   // games whose rematch state is remembered
// The material difference's pieces, as the opponent's pieces taken (text
// presentation: U+FE0E keeps a phone from drawing the pawn as an emoji).
const MATERIAL_GLYPHS = { Q: '\u265b', R: '\u265c', B: '\u265d',
                          N: '\u265e', P: '\u265f\ufe0e' };

// Premoves: on the opponent's turn (or while our own move is on its way)
// the player may queue up to `premoves.max` moves. The board offers them
// by piece geometry only (this is no rules code); each is sent the moment
// the opponent's `moved` makes it our turn, if the server's new `legal`
// list has it, and dropped with a note (with the rest of the queue) if
// not. A pawn premoved to the last rank becomes a queen. The settings
// page may change the count with setPremoveCount (0 turns premoves off).
export const premoves = { max: 1 };

export function setPremoveCount(n) {
    premoves.max = Math.max(0, Math.min(10, Math.floor(Number(n)) || 0));
}

export class GameView {
    // ctx: send(msg) -> id or 0, me() -> PLAYER or null, online() -> bool,
    // toast(text, kind, action?), confirm(text, yes, no) -> Promise<bool>,
    // navigate(path), announce(text).
    constructor(ctx) {
        this.ctx = ctx;
        this.gid = null;
        this.g = null;
        this.flipped = false;
        this.board = new Board($('board'), (uci) => this.playMove(uci));
        this.board.onCancelPremove = () => this.cancelPremoves();
        this.section = $('game');
        this.lastRendered = {};
        this.rematches = new Map();
        this.bind();
    }

    bind() {
        $('nav-first').addEventListener('click', () => this.browse(0));
        $('nav-prev').addEventListener('click', () => this.browse(-1, true));
        $('nav-next').addEventListener('click', () => this.browse(1, true));
        $('nav-last').addEventListener('click', () => this.browse(null));
        $('flip-btn').addEventListener('click', () => {
            this.flipped = !this.flipped;
            this.render();
        });
        $('moves').addEventListener('click', (e) => {
            const b = e.target.closest('button[data-ply]');
            if (b)
                this.browse(Number(b.dataset.ply));
        });
        $('draw-btn').addEventListener('click', () => this.act('draw_offer'));
        $('accept-draw-btn').addEventListener('click',
                                              () => this.act('draw_accept'));
        $('decline-draw-btn').addEventListener('click',
                                               () => this.act('draw_decline'));
        $('claim-btn').addEventListener('click', () => this.act('draw_claim'));
        $('abort-btn').addEventListener('click', () => this.act('abort'));
        $('cancel-invite-btn').addEventListener('click',
                                                () => this.act('abort'));
        $('resign-btn').addEventListener('click', async () => {
            if (await this.ctx.confirm('Resign this game?', 'Resign'))
                this.act('resign');
        });
        $('leave-btn').addEventListener('click', () => this.leave());
        $('join-btn').addEventListener('click', () => this.act('join'));
        $('copy-btn').addEventListener('click', () => this.copyLink());
        $('rematch-btn').addEventListener('click',
                                          () => this.rematchAct('rematch'));
        $('rematch-accept-btn').addEventListener(
            'click', () => this.rematchAct('rematch'));
        $('rematch-withdraw-btn').addEventListener(
            'click', () => this.rematchAct('rematch_decline'));
        $('rematch-decline-btn').addEventListener(
            'click', () => this.rematchAct('rematch_decline'));
        document.addEventListener('keydown', (e) => this.keyDown(e));
    }

    // ---- opening and closing -------------------------------------------

    // Shows game `gid`; unless `stateComing` (a `state` is already on its
    // way, after game_start), asks the server for it.
    open(gid, stateComing) {
        if (this.gid !== gid) {
            this.close();
            this.gid = gid;
            this.g = null;
            this.flipped = false;
            this.watching = false;
            this.missing = false;
            $('claim-with-move').checked = false;
        }
        this.section.hidden = false;
        if (!stateComing)
            this.resync();
        this.render();
    }

    // Leaves the page (not the game: a player's game goes on).
    close() {
        if (this.gid && this.watching)
            this.ctx.send({ t: 'unwatch', game: this.gid },
                          { t: 'unwatch', game: this.gid, quiet: true });
        this.watching = false;
        this.gid = null;
        this.g = null;
        this.section.hidden = true;
        document.title = 'Chess';
    }

    // Asks for the whole state again (after a reconnection or any doubt).
    resync() {
        if (!this.gid || !this.ctx.online())
            return;
        if (this.g && this.watching) {
            // A new connection is not subscribed: watch again.
            this.watching = false;
        }
        // (quiet: onError says what went wrong, once, on the page)
        this.ctx.send({ t: 'sync', game: this.gid },
                      { t: 'sync', game: this.gid, quiet: true });
    }

    // ---- server messages -----------------------------------------------

    onState(msg) {
        if (msg.game !== this.gid)
            return false;
        const me = this.ctx.me();
        const you = me && msg.white && msg.white.id === me.id ? 'white'
            : me && msg.black && msg.black.id === me.id ? 'black' : null;
        const now = performance.now();
        const old = this.g;
        this.g = {
            white: msg.white, black: msg.black, clock: msg.clock,
            initialFen: msg.initial_fen || START_FEN,
            moves: (msg.moves || []).slice(), san: (msg.san || []).slice(),
            fen: msg.fen, ply: msg.ply, toMove: msg.to_move,
            check: !!msg.check, clocks: msg.clocks, clocksAt: now,
            firstMoveMs: msg.first_move_ms, firstMoveAt: now,
            status: msg.status, drawOffer: msg.draw_offer || null,
            rated: !!msg.rated,
            ratings: msg.ratings || (old && old.ratings) || null,
            gone: {
                white: msg.gone && msg.gone.white != null
                    ? { ms: msg.gone.white, at: now } : null,
                black: msg.gone && msg.gone.black != null
                    ? { ms: msg.gone.black, at: now } : null,
            },
            legal: msg.legal || [], claimable: !!msg.claimable,
            claimMoves: msg.claim_moves || [],
            result: msg.result || null, reason: msg.reason || null,
            you, positions: null,
            // ply -> lag_ms of each move (state's lags, then moved's)
            lags: lagsOf(msg.lags),
            viewPly: old && old.viewPly !== null && old.viewPly < msg.ply
                ? old.viewPly : null,
            pendingMove: null,
            premoves: old && you && msg.status === 'started'
                ? old.premoves : [],
        };
        if (you && msg.white && msg.black)
            this.seats(this.gid, you, msg.white.id, msg.black.id);
        // Anyone without a seat follows the game live, also an invitation
        // (to see it start, or be taken by someone else).
        if (!you && msg.status !== 'ended' && !this.watching) {
            this.watching = true;
            this.ctx.send({ t: 'watch', game: this.gid },
                          { t: 'watch', game: this.gid, quiet: true });
        }
        this.playPremove();
        this.render();
        return true;
    }

    onMoved(msg) {
        const g = this.g;
        if (msg.game !== this.gid || !g)
            return false;
        if (msg.ply <= g.ply)
            return true;
        if (msg.ply !== g.ply + 1) {
            this.resync();
            return true;
        }
        const now = performance.now();
        const mine = g.pendingMove && g.pendingMove.uci === msg.uci;
        const mover = g.toMove;
        g.moves.push(msg.uci);
        g.san.push(msg.san);
        if (typeof msg.lag_ms === 'number')
            g.lags[msg.ply] = msg.lag_ms;
        g.fen = msg.fen;
        g.ply = msg.ply;
        g.toMove = parseFen(msg.fen).turn === 'w' ? 'white' : 'black';
        g.check = !!msg.check;
        g.clocks = msg.clocks;
        g.clocksAt = now;
        g.firstMoveMs = msg.first_move_ms === undefined ? null
            : msg.first_move_ms;
        g.firstMoveAt = now;
        g.drawOffer = msg.draw_offer || null;
        g.legal = msg.legal || [];
        g.claimable = !!msg.claimable;
        g.claimMoves = msg.claim_moves || [];
        g.pendingMove = null;
        if (mover === g.you)
            g.offerDeclined = false; // the server allows a new offer now
        if (g.status === 'waiting')
            g.status = 'started';
        // Our premove goes out before anything is drawn.
        const premoved = this.playPremove();
        this.ctx.announce(`${W.colorName(mover)} played ${msg.san}`);
        const live = g.viewPly === null;
        this.render(live && !mine && !premoved
            ? [squareIndex(msg.uci.slice(0, 2)),
               squareIndex(msg.uci.slice(2, 4))] : null);
        return true;
    }

    onEnd(msg) {
        const g = this.g;
        if (msg.game !== this.gid || !g)
            return false;
        const now = performance.now();
        if (g.clocks) {
            g.clocks = { white_ms: this.clockMs('white', now),
                         black_ms: this.clockMs('black', now),
                         running: null };
            g.clocksAt = now;
        }
        g.status = 'ended';
        if (msg.ratings)
            g.ratings = msg.ratings;
        g.result = msg.result;
        g.reason = msg.reason;
        g.legal = [];
        g.claimable = false;
        g.claimMoves = [];
        g.drawOffer = null;
        g.pendingMove = null;
        g.premoves = [];
        g.firstMoveMs = null;
        g.gone = { white: null, black: null };
        this.ctx.announce(`${W.resultTitle(msg.result, g.you)}. ${
            W.reasonText(msg.result, msg.reason, g.toMove)}`);
        this.render();
        // The final clocks and position come with the full state.
        this.resync();
        return true;
    }

    // Everyone in the game gets draw_offered with the offerer's `color`
    // (PROTOCOL.md, Draw offers). Without a valid one the page takes it
    // for the opponent's offer unless its own is pending, and a spectator
    // asks for the state.
    onDrawOffered(msg) {
        const g = this.g;
        if (msg.game !== this.gid || !g)
            return false;
        const by = msg.color === 'white' || msg.color === 'black' ? msg.color
            : g.you && g.drawOffer !== g.you ? W.other(g.you) : null;
        if (by) {
            g.drawOffer = by;
            this.render();
        } else {
            this.resync();
        }
        return true;
    }

    // Everyone in the game gets draw_declined with the decliner's `color`;
    // without one the declined offer is ours if ours was pending.
    onDrawDeclined(msg) {
        const g = this.g;
        if (msg.game !== this.gid || !g)
            return false;
        const mine = g.you && (msg.color ? msg.color !== g.you
            : g.drawOffer === g.you);
        g.drawOffer = null;
        if (mine) {
            // The server takes no new offer before a move of ours.
            g.offerDeclined = true;
            this.ctx.toast('Your draw offer was declined.', 'info');
        }
        this.render();
        return true;
    }

    onGone(msg) {
        const g = this.g;
        if (msg.game !== this.gid || !g)
            return false;
        g.gone[msg.color] = { ms: msg.grace_ms, at: performance.now() };
        this.render();
        return true;
    }

    onBack(msg) {
        const g = this.g;
        if (msg.game !== this.gid || !g)
            return false;
        g.gone[msg.color] = null;
        this.render();
        return true;
    }

    // An error caused by a request this view sent (`req` is what was sent).
    onError(req, msg) {
        const g = this.g;
        if (req.t === 'move' || req.t === 'draw_claim') {
            if (g) {
                g.pendingMove = null;
                g.premoves = [];
            }
            this.render();
            this.resync();
        } else if ((req.t === 'sync' || req.t === 'watch') &&
                   msg.code === 'no_such_game') {
            // The page says it (no toast besides: the request was quiet).
            this.missing = true;
            this.render();
        } else if (req.t === 'sync' || req.t === 'watch') {
            this.ctx.toast(W.errorText(msg.code, msg.msg), 'error');
        } else if (req.t === 'join' || req.t === 'abort' ||
                   req.t.startsWith('draw')) {
            this.resync();
        }
    }

    // ---- rematch ---------------------------------------------------------

    // The rematch record of game `gid`, made when missing (the oldest is
    // forgotten beyond REMATCH_GAMES). offer: the colour whose offer is
    // pending; busy: our answer to it (accept, decline) or our withdrawal
    // is unanswered; barred: the label of
    // the Rematch button when the server would refuse our offer (null: it
    // would not); note: what the page last said about it; next: the GID of
    // the rematch once it started.
    rematch(gid) {
        let r = this.rematches.get(gid);
        if (!r) {
            r = { you: null, white: null, black: null, offer: null,
                  busy: false, barred: null, note: '', next: null };
            this.rematches.set(gid, r);
            if (this.rematches.size > REMATCH_GAMES)
                this.rematches.delete(this.rematches.keys().next().value);
        }
        return r;
    }

    // A new connection (after a lost one) is not told of offers made
    // before it, and ours lapsed if it was our last connection
    // (PROTOCOL.md section 7): the page forgets pending offers rather than
    // show one that may be gone. Offering again is always safe: it accepts
    // an offer still pending, and repeats ours without effect.
    onWelcome() {
        for (const [gid, r] of this.rematches) {
            if (!r.offer && !r.busy)
                continue;
            r.offer = null;
            r.busy = false;
            r.note = 'The connection dropped: the rematch offer may have ' +
                'lapsed.';
            if (gid === this.gid && this.g)
                this.render();
        }
    }

    // Remembers who sits where in game `gid` (PIDs), `you` our colour.
    seats(gid, you, white, black) {
        Object.assign(this.rematch(gid), { you, white, black });
    }

    // A game of ours started (game_start): when it is the rematch of a game
    // with an offer pending, that game's record points to it.
    onGameStart(msg) {
        if (!msg.white || !msg.black)
            return;
        for (const r of this.rematches.values()) {
            if ((r.offer || r.busy) && r.white === msg.black.id &&
                r.black === msg.white.id) {
                r.offer = null;
                r.busy = false;
                r.next = msg.game;
            }
        }
        this.seats(msg.game, msg.you, msg.white.id, msg.black.id);
    }

    // rematch_offered goes to every connection of both players, with the
    // offerer's colour. An offer for a game this page does not show is
    // told in a toast that leads to it.
    onRematchOffered(msg) {
        const r = this.rematches.get(msg.game);
        if (!r || (msg.color !== 'white' && msg.color !== 'black'))
            return;
        r.offer = msg.color;
        r.busy = false;
        r.note = '';
        if (msg.game === this.gid) {
            this.render();
        } else if (r.you && msg.color !== r.you) {
            this.ctx.toast('Your opponent offers a rematch.', 'info', {
                label: 'Show the game',
                run: () => this.ctx.navigate(`/g/${msg.game}`),
            });
        }
    }

    // rematch_declined ends the pending offer, with why and who.
    onRematchDeclined(msg) {
        const r = this.rematches.get(msg.game);
        if (!r)
            return;
        const offerer = r.offer;
        const by = msg.color === 'white' || msg.color === 'black' ? msg.color
            : null;
        r.offer = null;
        r.busy = false;
        r.note = W.rematchEndText(msg.reason, by, offerer, r.you);
        // Who may offer again (PROTOCOL.md section 7): not the player whose
        // offer was declined or withdrawn, nor one who left with an offer
        // pending.
        if (r.you && msg.reason === 'declined' && offerer === r.you)
            r.barred = by === r.you ? 'Rematch withdrawn' : 'Rematch declined';
        else if (r.you && msg.reason === 'left' && by === r.you)
            r.barred = 'Rematch';
        if (msg.game === this.gid)
            this.render();
    }

    // The server refused our rematch or rematch_decline (`req`): the end
    // panel says why; after no_rematch an offer of ours would be refused
    // again.
    onRematchError(req, msg) {
        const r = this.rematches.get(req.game);
        if (!r)
            return;
        if (req.t === 'rematch' && r.offer === r.you)
            r.offer = null;                 /* shown before the answer */
        else if (req.t === 'rematch_decline' && msg.code === 'no_rematch')
            r.offer = null;                 /* there was none to end */
        r.busy = false;
        r.note = W.errorText(msg.code, msg.msg);
        if (req.t === 'rematch' && msg.code === 'no_rematch')
            r.barred = 'No rematch';
        if (req.game === this.gid)
            this.render();
    }

    // rematch: offer, or accept the opponent's offer; rematch_decline:
    // withdraw ours, or decline theirs.
    rematchAct(t) {
        const g = this.g;
        if (!g || !g.you)
            return;
        const r = this.rematch(this.gid);
        if (r.busy)
            return;     // one request at a time
        const msg = { t, game: this.gid };
        // The end panel tells the outcome: no toast as well.
        if (!this.ctx.send(msg, { ...msg, quiet: true }))
            return;
        r.note = '';
        if (t === 'rematch' && !r.offer) {
            r.offer = g.you;    // shown at once, as the server will echo it
            this.focusAfter = 'rematch-withdraw-btn';
        } else {
            r.busy = true;
        }
        this.render();
    }

    // ---- actions -------------------------------------------------------

    act(t) {
        const g = this.g;
        if (!g)
            return;
        const msg = { t, game: this.gid };
        const id = this.ctx.send(msg, msg);
        if (!id)
            return;
        if (t === 'draw_offer' && g.you) {
            // Shown at once; the server's next message confirms or clears.
            if (g.drawOffer === W.other(g.you))
                g.drawOffer = null;
            else
                g.drawOffer = g.you;
            this.render();
        } else if (t === 'draw_decline') {
            g.drawOffer = null;
            this.render();
        }
    }

    // The board's move: played now on our turn, queued as a premove on
    // the opponent's (or while our move is on its way).
    playMove(uci) {
        const g = this.g;
        if (!g)
            return;
        if (this.premoving()) {
            if (g.premoves.length < premoves.max) {
                g.premoves.push(uci);
                this.render();
            }
            return;
        }
        if (g.pendingMove || g.toMove !== g.you)
            return;
        this.sendMove(uci);
        // Slides the piece (the board skips it after a drag).
        this.render([squareIndex(uci.slice(0, 2)),
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
        g.pendingMove = { uci, ply: g.ply, id };
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

    cancelPremoves() {
        const g = this.g;
        if (!g || !g.premoves.length)
            return;
        g.premoves = [];
        this.render();
    }

    async leave() {
        const g = this.g;
        if (!g) {
            this.ctx.navigate('/');
            return;
        }
        if (g.you && g.status === 'started') {
            if (!await this.ctx.confirm(
                'Leave this game? Leaving counts as resigning.', 'Leave'))
                return;
            this.ctx.send({ t: 'leave', game: this.gid },
                          { t: 'leave', game: this.gid });
        } else if (g.status === 'ended' || !g.you) {
            // Only unsubscribes this connection.
            if (this.watching || g.you)
                this.ctx.send({ t: 'leave', game: this.gid },
                              { t: 'leave', game: this.gid, quiet: true });
            this.watching = false;
        }
        // A waiting invitation stays open: its link still works.
        this.ctx.navigate('/');
    }

    async copyLink() {
        const input = $('invite-link');
        try {
            await navigator.clipboard.writeText(input.value);
            this.ctx.toast('Link copied.', 'info');
        } catch {
            input.focus();
            input.select();
            const ok = document.execCommand && document.execCommand('copy');
            this.ctx.toast(ok ? 'Link copied.'
                : 'Select the link and copy it.', 'info');
        }
    }

    // Moves the view to ply `to` (null: live), or by `to` when `relative`.
    browse(to, relative) {
        const g = this.g;
        if (!g)
            return;
        const cur = g.viewPly === null ? g.ply : g.viewPly;
        let next = relative ? cur + to : to;
        if (next === null || next >= g.ply)
            next = null;
        else
            next = Math.max(0, next);
        if (next === g.viewPly)
            return;
        g.viewPly = next;
        this.render();
    }

    keyDown(e) {
        if (this.section.hidden || !this.g || e.altKey || e.ctrlKey ||
            e.metaKey)
            return;
        const t = e.target;
        if (t && (t.closest('input, textarea, select, dialog, .board')))
            return;
        const keys = { ArrowLeft: [-1, true], ArrowRight: [1, true],
                       Home: [0, false], End: [null, false] };
        const k = keys[e.key];
        if (!k)
            return;
        e.preventDefault();
        this.browse(k[0], k[1]);
    }

    // ---- drawing -------------------------------------------------------

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

    clockMs(color, now) {
        const g = this.g;
        if (!g || !g.clocks)
            return 0;
        const base = g.clocks[`${color}_ms`];
        if (g.clocks.running !== color)
            return base;
        return Math.max(0, base - (now - g.clocksAt));
    }

    // The time left at which a clock turns red: the low-time sound's
    // threshold (sound.js lowTimeMs: 10 s on a time + increment clock; on a
    // per-move clock the larger of 3 s and a fifth of the budget).
    lowMs() {
        return lowTimeMs(this.g && this.g.clock);
    }

    render(animate) {
        const g = this.g;
        const online = this.ctx.online();
        // A wrong link gets a page of its own; until the real position is
        // known the board stays hidden (no starting position flashes).
        const missing = !g && !!this.missing;
        $('missing').hidden = !missing;
        this.section.querySelector('.play-area').hidden = missing;
        this.section.querySelector('.side').hidden = missing;
        this.section.classList.toggle('loading', !g);
        if (!g) {
            $('status').textContent = missing ? W.errorText('no_such_game')
                : online ? 'Loading the game…' : 'Connecting…';
            for (const id of ['invite-panel', 'join-panel', 'offer-panel',
                              'end-panel', 'controls', 'game-kind'])
                $(id).hidden = true;
            $('moves').replaceChildren();
            $('moves').dataset.key = '';
            for (const id of ['nav-first', 'nav-prev', 'nav-next', 'nav-last'])
                $(id).disabled = true;
            this.board.set({ board: new Array(64).fill(null),
                             orientation: 'white', interactive: false });
            this.shown = null;
            this.renderBars();
            if (missing)
                document.title = 'No such game · Chess';
            return;
        }
        this.missing = false;
        // A player sees their own side at the bottom; someone invited, the
        // side they would take.
        const base = g.you ? g.you
            : g.status === 'waiting' && g.white && !g.black ? 'black'
                : 'white';
        const orientation = this.flipped ? W.other(base) : base;
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
        let legal = g.legal;
        if (premoving) {
            // Destinations from the position after the queued premoves.
            let after = board;
            for (const uci of g.premoves)
                after = applyUci(after, uci);
            legal = g.premoves.length < premoves.max
                ? premoveCandidates(after, g.you[0]) : [];
        }
        this.board.set({ board, orientation, lastMove, check, legal,
                         interactive, animate, premove: premoving,
                         premoves: live ? g.premoves : [] });
        this.shown = board;     // the material difference counts this one
        this.section.classList.toggle('browsing', !live);
        this.section.classList.toggle('my-turn', interactive && !premoving);
        this.renderBars();
        this.renderStatus(online);
        this.renderPanels();
        this.renderMoves();
        document.title = g.status === 'started' && myTurn
            ? 'Your move · Chess' : g.status === 'ended'
                ? `${W.resultTitle(g.result, g.you)} · Chess` : 'Chess';
    }

    renderBars() {
        const g = this.g;
        const bottom = this.board.orientation;
        const diff = g && this.shown ? materialDiff(this.shown) : null;
        const sides = [['bar-top', W.other(bottom)], ['bar-bottom', bottom]];
        for (const [id, color] of sides) {
            const bar = $(id);
            const p = g ? g[color] : null;
            bar.dataset.color = color;
            bar.querySelector('.pcolor').className = `pcolor ${color}`;
            const you = !!(g && g.you === color);
            const el = bar.querySelector('.name');
            // A player's name links to their page of games; the element is
            // rebuilt only when it changes (a focused link stays).
            const key = p ? `${p.id} ${p.name} ${you}` : g && g.status ===
                'waiting' ? 'waiting' : '';
            if (el.dataset.key !== key) {
                el.dataset.key = key;
                el.replaceChildren();
                if (p) {
                    const a = document.createElement('a');
                    a.href = `/p/${p.id}`;
                    a.className = 'plink';
                    a.textContent = p.name;
                    el.append(a);
                } else if (key === 'waiting') {
                    el.append('Waiting for an opponent…');
                }
                if (you)
                    el.append(' (you)');
            }
            el.title = p ? `${W.colorName(color)}: ${p.name}` : '';
            // A rated game's players show their rating when seated.
            const rating = bar.querySelector('.prating');
            const rated = g && g.rated && p && typeof p.rating === 'number';
            rating.hidden = !rated;
            setText(rating, rated ? W.ratingText(p.rating, p.provisional)
                : '');
            rating.title = rated && p.provisional
                ? 'Provisional rating: too few rated games to be sure' : '';
            this.renderMaterial(bar.querySelector('.material'), color, diff);
            this.renderLag(bar.querySelector('.lag'), color);
        }
        const kind = $('game-kind');
        kind.hidden = !g || !g.clock;
        if (g && g.clock)
            setText(kind, W.gameKindText(g.clock, g.rated));
        this.tick(performance.now());
    }

    // Beside a name: the pieces `color` is up by in the position shown
    // (the live one or the one browsed to), as the opponent's pieces, and
    // +N points when ahead; a screen reader hears it in words.
    renderMaterial(el, color, diff) {
        const d = diff ? diff[color] : { up: [], score: 0 };
        const key = `${color}:${d.up.join('')}:${d.score}`;
        if (el.dataset.key === key)
            return;
        el.dataset.key = key;
        el.replaceChildren();
        el.dataset.score = String(d.score);
        if (!d.up.length && !d.score)
            return;
        const glyphs = document.createElement('span');
        glyphs.className = `mpieces ${W.other(color)}`;
        glyphs.setAttribute('aria-hidden', 'true');
        glyphs.textContent = d.up.map((k) => MATERIAL_GLYPHS[k]).join('');
        el.append(glyphs);
        if (d.score) {
            const score = document.createElement('span');
            score.className = 'mscore';
            score.setAttribute('aria-hidden', 'true');
            score.textContent = `+${d.score}`;
            el.append(score);
        }
        const words = document.createElement('span');
        words.className = 'sr-only';
        words.textContent = `${W.colorName(color)} is ${
            W.materialText(d.up, d.score)}`;
        el.append(words);
    }

    // Beside the clock of the side that made the last move (live view):
    // the lag credit the server gave that move (moved's lag_ms), when any.
    renderLag(el, color) {
        const g = this.g;
        const ply = g ? g.ply : 0;
        const ms = g && g.viewPly === null && ply > 0 ? g.lags[ply] : 0;
        const mover = ply > 0 && g.toMove !== color && g.status !== 'waiting';
        const show = !!(mover && ms > 0);
        el.hidden = !show;
        setText(el, show ? W.lagText(ms) : '');
        el.title = show ? `The server gave ${W.colorName(color)} ${
            Math.round(ms)} ms back on the last move for network delay` : '';
    }

    renderStatus(online) {
        const g = this.g;
        const el = $('status');
        let text;
        if (!online) {
            text = 'Connection lost. Reconnecting…';
        } else if (g.status === 'waiting') {
            text = g.you ? 'Waiting for your opponent to join.'
                : 'This game is waiting for a second player.';
        } else if (g.status === 'ended') {
            text = 'Game over';
        } else if (g.pendingMove) {
            text = 'Sending your move…';
        } else if (g.you && g.premoves.length) {
            text = `Premove ${g.premoves.map((u) => `${u.slice(0, 2)}-${
                u.slice(2, 4)}`).join(', ')} queued (right-click to cancel)`;
        } else if (g.you) {
            text = g.you === g.toMove ? 'Your move' : 'Waiting for your ' +
                'opponent to move';
            if (g.check && g.you === g.toMove)
                text += ': you are in check';
        } else {
            text = `You are watching. ${W.colorName(g.toMove)} to move`;
            if (g.check)
                text += ', in check';
        }
        if (g.viewPly !== null)
            text += ` (${this.viewingText()})`;
        el.textContent = text;
        el.classList.toggle('your-move', !!(online && g.status === 'started' &&
                                            g.you === g.toMove));
    }

    // Which move the board shows while browsing, in move numbers (not
    // half-moves): 'viewing 6… Nf6, move 6 of 7', 'viewing the starting
    // position'.
    viewingText() {
        const g = this.g;
        if (g.viewPly === 0)
            return 'viewing the starting position';
        const at = moveNumber(g.initialFen, g.viewPly);
        const last = moveNumber(g.initialFen, g.ply);
        return `viewing ${at.no}${at.white ? '.' : '…'} ${
            g.san[g.viewPly - 1]}, move ${at.no} of ${last.no}`;
    }

    renderPanels() {
        const g = this.g;
        const online = this.ctx.online();
        const started = g.status === 'started';
        $('invite-panel').hidden = !(g.status === 'waiting' && g.you);
        if (g.status === 'waiting' && g.you)
            $('invite-link').value = `${location.origin}/g/${this.gid}`;
        const joinable = g.status === 'waiting' && !g.you;
        $('join-panel').hidden = !joinable;
        if (joinable) {
            const host = g.white || g.black;
            const seat = g.white ? 'Black' : 'White';
            $('join-title').textContent = `${host ? host.name : 'Someone'
            } invites you to play`;
            let text = `${W.clockLabel(g.clock)} (${W.clockSpeed(g.clock)
            })${g.rated ? ', rated' : ''}. You play ${seat}.`;
            const me = this.ctx.me();
            if (g.rated && me && !me.account)
                text += ` ${W.RATED_NEEDS_ACCOUNT}`;
            if (g.initialFen !== START_FEN)
                text += ' The game starts from the position on the board.';
            $('join-text').textContent = text;
        }
        $('offer-panel').hidden = !(started && g.you &&
                                    g.drawOffer === W.other(g.you));
        const ended = g.status === 'ended';
        $('end-panel').hidden = !ended;
        if (ended) {
            $('end-title').textContent = W.resultTitle(g.result, g.you);
            $('end-reason').textContent = W.reasonText(g.result, g.reason,
                                                       g.toMove);
            const pgn = $('pgn-link');
            pgn.href = `/api/games/${this.gid}/pgn`;
            pgn.setAttribute('download', `chess-${this.gid}.pgn`);
            pgn.hidden = g.result === '*' && g.ply === 0;
            this.renderRematch(online);
            this.renderRatingChange();
        } else {
            $('end-ratings').hidden = true;
            $('rematch').hidden = true;
        }
        $('controls').hidden = false;
        const player = !!g.you;
        const showDraw = started && player &&
            g.drawOffer !== W.other(g.you);
        $('draw-btn').hidden = !showDraw;
        if (showDraw) {
            const mine = g.drawOffer === g.you;
            $('draw-btn').disabled = mine || !!g.offerDeclined;
            $('draw-btn').textContent = mine ? 'Draw offered' : 'Offer draw';
        }
        $('claim-btn').hidden = !(started && player && g.claimable &&
                                  g.toMove === g.you);
        // (claim_moves are the moves of the side to move)
        $('claim-with').hidden = !(started && player &&
                                   g.claimMoves.length > 0 &&
                                   g.toMove === g.you);
        $('abort-btn').hidden = !(started && player && g.ply < 2);
        $('resign-btn').hidden = !(started && player && g.ply >= 2);
        // Nothing can reach the server while offline: say so by disabling.
        for (const id of ['resign-btn', 'abort-btn', 'claim-btn',
                          'claim-with-move',
                          'accept-draw-btn', 'decline-draw-btn', 'join-btn',
                          'cancel-invite-btn'])
            $(id).disabled = !online;
        const me = this.ctx.me();
        if (g.rated && me && !me.account)
            $('join-btn').disabled = true;
        if (!online)
            $('draw-btn').disabled = true;
        const leave = $('leave-btn');
        // Leaving a started game resigns it (PROTOCOL.md: leave): the
        // button says so.
        leave.textContent = started && player ? 'Resign and leave'
            : !player && started ? 'Stop watching' : 'Back to lobby';
    }

    // The end panel's rating changes of a rated game (game_end's ratings).
    renderRatingChange() {
        const g = this.g;
        const list = $('end-ratings');
        list.hidden = !g.ratings;
        if (!g.ratings)
            return;
        const items = ['white', 'black'].filter((c) => g.ratings[c])
            .map((c) => {
                const { before, after } = g.ratings[c];
                const li = document.createElement('li');
                li.dataset.color = c;
                const p = g[c];
                li.append(`${p ? p.name : W.colorName(c)}${
                    g.you === c ? ' (you)' : ''}: ${before} → ${after} `);
                const d = document.createElement('b');
                d.className = after > before ? 'up' : after < before
                    ? 'down' : 'same';
                d.textContent = W.ratingDiff(before, after);
                li.append(d);
                return li;
            });
        const key = JSON.stringify([g.ratings, g.you, g.white && g.white.name,
                                    g.black && g.black.name]);
        if (list.dataset.key !== key) {
            list.dataset.key = key;
            list.replaceChildren(...items);
        }
    }

    // The end panel's rematch part, for a player of a game both joined.
    renderRematch(online) {
        const g = this.g;
        const box = $('rematch');
        const r = g.you && g.white && g.black ? this.rematch(this.gid) : null;
        const focused = box.contains(document.activeElement);
        box.hidden = !r;
        if (!r)
            return;
        const incoming = r.offer === W.other(g.you);
        const mine = r.offer === g.you;
        const note = $('rematch-note');
        // (r.note after an offer: our answer to it was refused)
        setText(note, r.next ? 'The rematch has started.'
            : incoming ? `Your opponent offers a rematch.${
                r.note ? ` ${r.note}` : ''}`
                : mine ? 'You offered a rematch. Waiting for your opponent…'
                    : r.note);
        note.classList.toggle('incoming', incoming);
        $('rematch-answer').hidden = !incoming || !!r.next;
        // (not disabled while busy: that would take the keyboard focus)
        $('rematch-accept-btn').disabled = !online;
        $('rematch-decline-btn').disabled = !online;
        const btn = $('rematch-btn');
        btn.hidden = incoming || !!r.next;
        setText(btn, mine ? 'Rematch offered' : r.barred || 'Rematch');
        btn.disabled = mine || !!r.barred || !online;
        $('rematch-withdraw-btn').hidden = !mine || !!r.next;
        $('rematch-withdraw-btn').disabled = !online;
        const link = $('rematch-link');
        link.hidden = !r.next;
        if (r.next)
            link.href = `/g/${r.next}`;
        $('rematch-own').hidden = btn.hidden && link.hidden &&
            $('rematch-withdraw-btn').hidden;
        // Keyboard focus stays in the panel when its button goes away.
        const want = this.focusAfter && $(this.focusAfter);
        this.focusAfter = null;
        const lost = focused && !box.contains(document.activeElement) ||
            document.activeElement && box.contains(document.activeElement) &&
            (document.activeElement.disabled ||
             document.activeElement.closest('[hidden]'));
        if (want && !want.hidden && !want.disabled) {
            want.focus();
        } else if (lost) {
            const to = ['rematch-accept-btn', 'rematch-btn',
                        'rematch-withdraw-btn', 'rematch-link',
                        'new-game-link'].map($).find((el) =>
                !el.disabled && !el.closest('[hidden]'));
            if (to)
                to.focus();
        }
    }

    renderMoves() {
        const g = this.g;
        const list = $('moves');
        const key = `${this.gid}:${g.ply}:${g.viewPly}:${g.san.length}`;
        if (list.dataset.key === key)
            return;
        list.dataset.key = key;
        const fen = g.initialFen.split(/\s+/);
        const blackFirst = fen[1] === 'b';
        const startNo = Number(fen[5]) || 1;
        const current = g.viewPly === null ? g.ply : g.viewPly;
        const frag = document.createDocumentFragment();
        let row = null;
        g.san.forEach((san, i) => {
            const h = i + (blackFirst ? 1 : 0);
            const white = h % 2 === 0;
            if (white || !row) {
                row = document.createElement('div');
                row.className = 'move-row';
                row.setAttribute('role', 'listitem');
                const no = document.createElement('span');
                no.className = 'move-no';
                no.textContent = `${startNo + Math.floor(h / 2)}.`;
                row.append(no);
                if (!white) {
                    const dots = document.createElement('span');
                    dots.className = 'move dots';
                    dots.textContent = '…';
                    row.append(dots);
                }
                frag.append(row);
            }
            const b = document.createElement('button');
            b.type = 'button';
            b.className = 'move';
            b.dataset.ply = String(i + 1);
            b.textContent = san;
            // The lag credit the server gave the move, when seen in a
            // `moved` (the state of a game lists none).
            const lag = g.lags[i + 1];
            const lagged = typeof lag === 'number' && lag > 0;
            b.setAttribute('aria-label', `${startNo + Math.floor(h / 2)}${
                white ? '.' : '…'} ${san}${lagged ? `, ${W.lagText(lag)}`
                : ''}`);
            if (lagged) {
                b.title = W.lagText(lag);
                b.dataset.lag = String(lag);
            }
            if (i + 1 === current) {
                b.classList.add('current');
                b.setAttribute('aria-current', 'step');
            }
            row.append(b);
        });
        if (!g.san.length) {
            const p = document.createElement('p');
            p.className = 'no-moves';
            p.setAttribute('role', 'listitem'); /* #moves is a list */
            p.textContent = g.status === 'ended' ? 'No moves were played.'
                : 'No moves yet.';
            frag.append(p);
        }
        list.replaceChildren(frag);
        const cur = list.querySelector('.current');
        if (cur && typeof cur.scrollIntoView === 'function')
            cur.scrollIntoView({ block: 'nearest' });
        const live = g.viewPly === null;
        $('nav-first').disabled = current === 0;
        $('nav-prev').disabled = current === 0;
        $('nav-next').disabled = live;
        $('nav-last').disabled = live;
    }

    // Called every animation frame while the page shows a game: clocks,
    // first-move and disconnection countdowns.
    tick(now) {
        const g = this.g;
        const low = this.lowMs();
        for (const id of ['bar-top', 'bar-bottom']) {
            const bar = $(id);
            const color = bar.dataset.color;
            const clockEl = bar.querySelector('.clock');
            const goneEl = bar.querySelector('.gone-tag');
            if (!g || !g.clocks) {
                setText(clockEl, '');
                clockEl.className = 'clock';
                goneEl.hidden = true;
                continue;
            }
            const ms = this.clockMs(color, now);
            setText(clockEl, W.formatClock(ms));
            const running = g.clocks.running === color;
            const cls = `clock${running ? ' running' : ''}${
                ms <= low && g.status === 'started' ? ' low' : ''}${
                ms <= 0 ? ' flagged' : ''}`;
            if (clockEl.className !== cls)
                clockEl.className = cls;
            clockEl.setAttribute('aria-label', `${W.colorName(color)} clock`);
            const gone = g.gone[color];
            if (gone) {
                const left = W.seconds(gone.ms - (now - gone.at));
                goneEl.hidden = false;
                setText(goneEl, `offline ${left} s`);
            } else {
                goneEl.hidden = true;
            }
        }
        const notice = $('notice');
        const text = g ? this.noticeText(now) : '';
        notice.hidden = !text;
        setText(notice, text);
    }

    noticeText(now) {
        const g = this.g;
        if (g.status !== 'started')
            return '';
        const parts = [];
        for (const color of ['white', 'black']) {
            const gone = g.gone[color];
            if (!gone || color === g.you)
                continue;
            const left = W.seconds(gone.ms - (now - gone.at));
            const who = g.you ? 'Your opponent' : W.colorName(color);
            parts.push(`${who} disconnected: ${left} s to return.`);
        }
        if (g.firstMoveMs != null && g.clocks && g.clocks.running === null) {
            const left = W.seconds(g.firstMoveMs - (now - g.firstMoveAt));
            const who = g.you === g.toMove ? 'You have'
                : `${W.colorName(g.toMove)} has`;
            parts.push(`${who} ${left} s to make the first move, or the ` +
                       'game is aborted.');
        }
        return parts.join(' ');
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

// state's lags (one per move, 0 for none) as ply -> lag_ms.
function lagsOf(list) {
    const lags = {};
    if (Array.isArray(list))
        list.forEach((ms, i) => {
            if (typeof ms === 'number' && ms > 0)
                lags[i + 1] = ms;
        });
    return lags;
}

function setText(el, text) {
    if (el.textContent !== text)
        el.textContent = text;
}
