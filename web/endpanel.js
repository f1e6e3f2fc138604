// endpanel.js - the end panel of the game page: the result and why (with
// the server's proof when a side could not checkmate), a rated game's
// rating changes, the PGN download and the rematch.
//
// Rematch offers (PROTOCOL.md section 7) are kept by GID in
// this.rematches, apart from the view's game: every `state` replaces that
// and none tells of an offer, and an offer may come while another page
// shows.

import * as W from './words.js';

const START_FEN =
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

const $ = (id) => document.getElementById(id);
const REMATCH_GAMES = 100;   // games whose rematch state is remembered

export class EndPanel {
    // view: the GameView whose game's end the panel shows.
    constructor(view) {
        this.view = view;
        this.rematches = new Map();
        this.focusAfter = null;
        $('rematch-btn').addEventListener('click',
                                          () => this.act('rematch'));
        $('rematch-accept-btn').addEventListener(
            'click', () => this.act('rematch'));
        $('rematch-withdraw-btn').addEventListener(
            'click', () => this.act('rematch_decline'));
        $('rematch-decline-btn').addEventListener(
            'click', () => this.act('rematch_decline'));
        $('computer-again-btn').addEventListener('click',
                                                 () => this.computerAgain());
    }

    // The game shown (the view's copy of the server's state), its GID and
    // the page's context: the view's, read when used.
    get g() { return this.view.g; }
    get gid() { return this.view.gid; }
    get ctx() { return this.view.ctx; }

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
                this.view.render();
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
            this.view.render();
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
            this.view.render();
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
            this.view.render();
    }

    // rematch: offer, or accept the opponent's offer; rematch_decline:
    // withdraw ours, or decline theirs.
    act(t) {
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
        this.view.render();
    }

    // Shows the panel while the game is over (hides it otherwise).
    render(online) {
        const g = this.g;
        const ended = g.status === 'ended';
        $('end-panel').hidden = !ended;
        if (ended) {
            $('end-title').textContent = W.resultTitle(g.result, g.you,
                                                       g.reason);
            setText($('end-score'), W.scoreText(g.result));
            $('end-reason').textContent = W.reasonText(g.result, g.reason,
                                                       g.toMove);
            // why the side(s) could not checkmate (dead positions and
            // timeouts against them)
            const proof = W.proofText(g.proof).join(' ');
            setText($('end-proof'), proof);
            $('end-proof').hidden = !proof;
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

    // The computer's level in this game (0: two people play it).
    computerLevel() {
        const g = this.g;
        return (g.white && g.white.ai) || (g.black && g.black.ai) || 0;
    }

    // Another game against the computer: its level, clock and start,
    // the other colour (the computer plays no rematch).
    computerAgain() {
        const g = this.g;
        const level = this.computerLevel();
        if (!g || !g.you || !level)
            return;
        const msg = { t: 'computer', level, clock: g.clock,
                      color: W.other(g.you) };
        if (g.initialFen && g.initialFen !== START_FEN)
            msg.fen = g.initialFen;
        this.ctx.send(msg, msg);
    }

    // The end panel's rematch part, for a player of a game both joined
    // (against the computer: another game instead).
    renderRematch(online) {
        const g = this.g;
        const box = $('rematch');
        const ai = this.computerLevel();
        $('computer-again').hidden = !g.you || !ai;
        $('computer-again-btn').disabled = !online;
        const r = g.you && g.white && g.black && !ai ? this.rematch(this.gid)
            : null;
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
}

function setText(el, text) {
    if (el.textContent !== text)
        el.textContent = text;
}
