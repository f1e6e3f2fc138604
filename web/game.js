// game.js - the game page: one game (played, joined, or watched) with its
// board, clocks, move list, actions and end. This view keeps the game and
// answers the server's messages; its parts draw it: the board and what a
// move on it does (gameboard.js), the player bars, clocks and status line
// (clocks.js), the move list (movelist.js), the end panel with the
// rematch (endpanel.js) and the moves typed on the keyboard (keymove.js).
// Keys on the page: f flips the board, z turns zen mode on and off.
//
// The server is the only authority. This view keeps a copy of the last
// `state` plus the `moved`s since, and resyncs (`sync`) whenever that copy
// could be wrong: after a reconnection, a gap in the plies, a rejected move,
// a move of ours left unanswered for a few seconds.
// Clocks are counted down between messages for display only; every server
// message replaces the numbers.

import { Clocks } from './clocks.js';
import { copyText } from './copy.js';
import { EndPanel } from './endpanel.js';
import { GameBoard } from './gameboard.js';
import { KeyMove } from './keymove.js';
import { MoveList } from './movelist.js';
import { fenAt, parseFen, squareIndex } from './position.js';
import * as Settings from './settings.js';
import { askToNotify } from './mygames.js';
import { TakebackPanel } from './takeback.js';
import * as W from './words.js';

export { setPremoveCount } from './gameboard.js';

const $ = (id) => document.getElementById(id);
const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

// The chat panel (chat.js), loaded when a game is first opened (a visit
// to the lobby does not fetch it: static.test.mjs counts the repeat
// visit's requests): until it has come, the calls made to it wait, in
// order (a chat_history may come with the game's first state).
function lazyChat(view) {
    let panel = null;
    const waiting = [];
    const call = (name, args) => {
        if (panel) {
            panel[name](...args);
            return;
        }
        waiting.push([name, args]);
        if (waiting.length === 1)
            import('./chat.js').then((m) => {
                panel = new m.ChatPanel(view);
                for (const [n, a] of waiting.splice(0))
                    panel[n](...a);
            }, (e) => console.warn(`chat.js: ${e}`));
    };
    return Object.fromEntries(['reset', 'onMessage', 'onError', 'render']
        .map((name) => [name, (...args) => call(name, args)]));
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
        this.play = new GameBoard(this);
        this.section = $('game');
        this.clocks = new Clocks(this);
        this.moveList = new MoveList(this);
        this.endPanel = new EndPanel(this);
        this.keyMove = new KeyMove(this);
        this.takeback = new TakebackPanel(this);
        // analysis.js: loaded with the first finished game shown (a visit
        // to the lobby or a live game does not fetch it)
        this.analysis = null;
        this.analysisLoading = false;
        this.chat = lazyChat(this);
        this.bind();
    }

    bind() {
        $('flip-btn').addEventListener('click', () => {
            this.flipped = !this.flipped;
            this.render();
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
        $('join-btn').addEventListener('click', () => {
            askToNotify(this.g && this.g.clock);
            this.act('join');
        });
        $('copy-btn').addEventListener('click', () => this.copyLink());
        $('copy-fen-btn').addEventListener('click', () => this.copyFen());
        $('copy-pgn-btn').addEventListener('click', () => this.copyPgn());
        document.addEventListener('keydown', (e) => this.keyDown(e));
    }

    // f flips the board, z turns zen mode on and off (lichess's keys),
    // while the game page shows and no text field or dialog has the keys.
    keyDown(e) {
        if (this.section.hidden || !this.g || e.altKey || e.ctrlKey ||
            e.metaKey || e.repeat)
            return;
        const t = e.target;
        if (t && t.closest && t.closest('input, textarea, select, dialog'))
            return;
        if (e.key === 'f') {
            e.preventDefault();
            this.flipped = !this.flipped;
            this.render();
        } else if (e.key === 'z') {
            e.preventDefault();
            Settings.set('zen', !Settings.get('zen'));
        }
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
            this.chat.reset();
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

    // Our move `pending` (GameBoard.sendMove's) has had no answer for
    // MOVE_ANSWER_MS: the game's state settles it (the move is in it, or
    // it is not and the board takes a move again).
    moveUnanswered(pending) {
        if (this.g && this.g.pendingMove === pending)
            this.resync();
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
            // the pending takeback request's colour, or null
            takeback: msg.takeback || null,
            // an arena game's berserks (PROTOCOL.md "Berserk")
            berserk: { white: !!(msg.berserk && msg.berserk.white),
                       black: !!(msg.berserk && msg.berserk.black) },
            // no draw by agreement before this ply (a Swiss game's rule,
            // PROTOCOL.md "Swiss tournaments"), 0: none
            drawFromPly: Number.isInteger(msg.draw_from_ply)
                ? msg.draw_from_ply : 0,
            // the tournament of a live tournament game (PROTOCOL.md
            // section 7, "event"): {id, kind, name, berserk} or null
            event: msg.event || (old && old.event) || null,
            takebackDeclined: !!(old && old.takebackDeclined &&
                                 old.ply === msg.ply),
            rated: !!msg.rated,
            watchers: typeof msg.watchers === 'number' ? msg.watchers : 0,
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
            proof: msg.proof || null,
            // the game's opening, {eco, name} or null (PROTOCOL.md,
            // Openings): state's, then each moved that changes it
            opening: msg.opening || null,
            you, positions: null,
            // ply -> lag_ms of each move (state's lags, then moved's)
            lags: lagsOf(msg.lags),
            // each seat's round trip as the server measured it (ms, null:
            // not yet): state's rtt, then each moved's rtt_ms
            rtt: { white: msg.rtt ? msg.rtt.white : null,
                   black: msg.rtt ? msg.rtt.black : null },
            viewPly: old && old.viewPly !== null && old.viewPly < msg.ply
                ? old.viewPly : null,
            pendingMove: null,
            premoves: old && you && msg.status === 'started'
                ? old.premoves : [],
        };
        if (you && msg.white && msg.black)
            this.endPanel.seats(this.gid, you, msg.white.id, msg.black.id);
        // Anyone without a seat follows the game live, also an invitation
        // (to see it start, or be taken by someone else).
        if (!you && msg.status !== 'ended' && !this.watching) {
            this.watching = true;
            this.ctx.send({ t: 'watch', game: this.gid },
                          { t: 'watch', game: this.gid, quiet: true });
        }
        this.play.playPremove();
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
        if (msg.rtt_ms !== undefined)
            g.rtt[mover] = msg.rtt_ms;
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
        this.takeback.onMoved();
        g.legal = msg.legal || [];
        g.claimable = !!msg.claimable;
        g.claimMoves = msg.claim_moves || [];
        if (msg.opening)
            g.opening = msg.opening;
        g.pendingMove = null;
        if (mover === g.you)
            g.offerDeclined = false; // the server allows a new offer now
        if (g.status === 'waiting')
            g.status = 'started';
        // Our premove goes out before anything is drawn.
        const premoved = this.play.playPremove();
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
        g.proof = msg.proof || null;
        g.legal = [];
        g.claimable = false;
        g.claimMoves = [];
        g.drawOffer = null;
        g.takeback = null;
        g.pendingMove = null;
        g.premoves = [];
        g.firstMoveMs = null;
        g.gone = { white: null, black: null };
        this.ctx.announce(`${W.resultTitle(msg.result, g.you, msg.reason)
        }. ${W.reasonText(msg.result, msg.reason, g.toMove)}`);
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
        } else if (!g.you && msg.color) {
            this.ctx.announce(`${W.colorName(msg.color)} declined the ` +
                              'draw offer.');
        }
        this.render();
        return true;
    }

    // The number of spectators changed (PROTOCOL.md section 6, Watchers).
    onWatchers(msg) {
        const g = this.g;
        if (msg.game !== this.gid || !g || typeof msg.n !== 'number')
            return false;
        g.watchers = msg.n;
        this.render();
        return true;
    }

    // A player of an arena game went berserk: half his time, no increment.
    onBerserk(msg) {
        const g = this.g;
        if (msg.game !== this.gid || !g)
            return false;
        g.berserk[msg.color] = true;
        if (msg.clocks) {
            g.clocks = msg.clocks;
            g.clocksAt = performance.now();
        }
        this.ctx.announce(`${W.colorName(msg.color)} went berserk: half ` +
                          'the time, no increment.');
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
        if (req.t === 'chat') {
            this.chat.onError(msg);
            return;
        }
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
                   req.t.startsWith('draw') || req.t.startsWith('takeback')) {
            this.resync();
        }
    }

    // ---- rematch (the end panel keeps the offers) ----------------------

    onWelcome() {
        this.endPanel.onWelcome();
    }

    onGameStart(msg) {
        this.endPanel.onGameStart(msg);
    }

    onRematchOffered(msg) {
        this.endPanel.onRematchOffered(msg);
    }

    onRematchDeclined(msg) {
        this.endPanel.onRematchDeclined(msg);
    }

    onRematchError(req, msg) {
        this.endPanel.onRematchError(req, msg);
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
        } else if (t === 'takeback' && g.you) {
            g.takeback = g.takeback === W.other(g.you) ? null : g.you;
            this.render();
        } else if (t === 'takeback_decline') {
            g.takeback = null;
            this.render();
        }
    }

    // The board's move (GameBoard.playMove; app.js may wrap this one).
    playMove(uci) {
        return this.play.playMove(uci);
    }

    // True while a board move would be a premove.
    premoving() {
        return this.play.premoving();
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
        if (await copyText(input.value)) {
            this.ctx.toast('Link copied.', 'info');
            return;
        }
        input.focus();
        input.select();
        this.ctx.toast('Select the link and copy it.', 'info');
    }

    // The FEN of the position shown: the server's for the live one, else
    // the browsed one's (position.js fenAt).
    async copyFen() {
        const g = this.g;
        if (!g)
            return;
        const fen = g.viewPly === null ? g.fen
            : fenAt(g.initialFen, g.moves, g.viewPly);
        this.ctx.toast(await copyText(fen) ? 'FEN copied.'
            : 'Your browser did not let the page copy.', 'info');
    }

    // The PGN as the server exports it (PROTOCOL.md, GET
    // /api/games/GID/pgn): a live game's moves so far.
    async copyPgn() {
        const gid = this.gid;
        if (!gid)
            return;
        let pgn = null;
        try {
            const r = await fetch(`/api/games/${encodeURIComponent(gid)}/pgn`);
            if (r.ok)
                pgn = await r.text();
        } catch {
            pgn = null;
        }
        if (pgn === null) {
            this.ctx.toast('The PGN could not be fetched. Try again.',
                           'error');
            return;
        }
        this.ctx.toast(await copyText(pgn) ? 'PGN copied.'
            : 'Your browser did not let the page copy.', 'info');
    }

    // ---- drawing -------------------------------------------------------

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
                              'end-panel', 'controls', 'game-kind',
                              'watchers', 'keymove'])
                $(id).hidden = true;
            this.moveList.clear();
            this.play.clear();
            this.clocks.renderBars();
            if (missing)
                document.title = 'No such game · Chess';
            return;
        }
        this.missing = false;
        this.play.draw(animate);
        this.clocks.renderBars();
        this.renderOpening();
        this.clocks.renderStatus(online);
        this.renderPanels();
        this.moveList.render();
        this.renderAnalysis(g);
        // the analysis board: after the game, or for a spectator
        const board = $('analysis-link');
        board.hidden = !(g.status === 'ended' || !g.you);
        board.href = `/analysis?game=${encodeURIComponent(this.gid)}`;
        this.keyMove.render();
        if (this.ctx.gameRendered)
            this.ctx.gameRendered(this.gid, g);
        this.section.classList.toggle('playing', !!(g.you &&
                                                    g.status === 'started'));
        document.title = g.status === 'started' && g.you === g.toMove
            ? 'Your move · Chess' : g.status === 'ended'
                ? `${W.resultTitle(g.result, g.you, g.reason)} · Chess`
                : 'Chess';
    }

    // The computer analysis's panel, its module loaded when first needed.
    renderAnalysis(g) {
        if (this.analysis) {
            this.analysis.render(g, this.ctx.online());
        } else if (g.status === 'ended' && !this.analysisLoading) {
            this.analysisLoading = true;
            import('./analysis.js').then((m) => {
                this.analysis = new m.AnalysisPanel(this);
                if (this.g)
                    this.render();
            }, (e) => {
                this.analysisLoading = false;
                console.warn(`analysis.js: ${e}`);
            });
        }
    }

    // The opening's ECO code and name above the board, after the time
    // control (the whole name in the title: the line may cut it short).
    renderOpening() {
        const o = this.g.opening;
        $('opening').hidden = !o;
        $('opening-eco').textContent = o ? o.eco : '';
        $('opening-name').textContent = o ? o.name : '';
        $('opening').title = o ? `${o.eco} ${o.name}` : '';
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
        // A draw offer: the opponent's with its answers; a spectator's
        // view of either player's.
        const theirs = started && g.you && g.drawOffer === W.other(g.you);
        const watched = started && !g.you && !!g.drawOffer;
        $('offer-panel').hidden = !(theirs || watched);
        setText($('offer-text'), watched
            ? `${W.colorName(g.drawOffer)} offers a draw.`
            : 'Your opponent offers a draw.');
        $('offer-buttons').hidden = !theirs;
        this.takeback.render(g, online, started);
        this.chat.render();
        const watchers = $('watchers');
        watchers.hidden = !g.watchers || g.status === 'ended';
        setText(watchers, W.watchersText(g.watchers));
        this.endPanel.render(online);
        // (the end panel's headline says the game is over; the status
        // stays while browsing the moves, which it counts)
        $('status').hidden = online && g.status === 'ended' &&
            g.viewPly === null;
        $('controls').hidden = false;
        const player = !!g.you;
        const showDraw = started && player &&
            g.drawOffer !== W.other(g.you);
        $('draw-btn').hidden = !showDraw;
        // (a Swiss game before move 30: disabled, the tooltip says why,
        // as lichess's; a takeback back under the ply disables it again)
        const early = g.ply < g.drawFromPly;
        if (showDraw) {
            const mine = g.drawOffer === g.you;
            $('draw-btn').disabled = mine || !!g.offerDeclined || early;
            $('draw-btn').textContent = mine ? 'Draw offered' : 'Offer draw';
        }
        $('draw-btn').title = early ? W.drawTooEarlyText(g.drawFromPly) : '';
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
        // an offer a takeback brought back under the ply cannot be taken
        if (early)
            $('accept-draw-btn').disabled = true;
        $('accept-draw-btn').title = early
            ? W.drawTooEarlyText(g.drawFromPly) : '';
        const leave = $('leave-btn');
        // Leaving a started game resigns it (PROTOCOL.md: leave): the
        // button says so.
        leave.textContent = started && player ? 'Resign and leave'
            : !player && started ? 'Stop watching' : 'Back to lobby';
    }

    // Called every animation frame while the page shows a game: clocks,
    // first-move and disconnection countdowns.
    tick(now) {
        this.clocks.tick(now);
    }

    // The time left on `color`'s clock at `now` (also sound.js's).
    clockMs(color, now) {
        return this.clocks.clockMs(color, now);
    }
}

function setText(el, text) {
    if (el.textContent !== text)
        el.textContent = text;
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
