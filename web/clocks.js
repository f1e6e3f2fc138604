// clocks.js - the game page's player bars (names, guests marked, ratings,
// the material difference, each connection's signal, the lag credit of
// the last move), the clocks and the
// countdowns of a first move or a disconnected player, counted down
// between server messages for display only, and the status line.

import { materialDiff, moveNumber } from './position.js';
import { lowTimeMs } from './sound.js';
import * as W from './words.js';

const $ = (id) => document.getElementById(id);
// The material difference's pieces, as the opponent's pieces taken (text
// presentation: U+FE0E keeps a phone from drawing the pawn as an emoji).
const MATERIAL_GLYPHS = { Q: '\u265b', R: '\u265c', B: '\u265d',
                          N: '\u265e', P: '\u265f\ufe0e' };

// Whether a game's clocks can show hours or days (1:05:09, 2d 23h): such
// faces are set smaller on a phone, both alike for the whole game, so that
// the names keep their room.
function longFaces(clock) {
    return !!clock && (clock.type === 'per_move' ?
        clock.per_move_s >= 3600 : clock.initial_s >= 3600);
}

export class Clocks {
    // view: the GameView whose game the bars show.
    constructor(view) {
        this.view = view;
    }

    // The game shown (the view's copy of the server's state), read when
    // used.
    get g() { return this.view.g; }

    // The time left on `color`'s clock at `now` (performance.now()).
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

    // Both players' bars, the side at the bottom the board's.
    renderBars() {
        const g = this.g;
        const bottom = this.view.play.board.orientation;
        const shown = this.view.play.shown;
        const diff = g && shown ? materialDiff(shown) : null;
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
            const key = p ? `${p.id} ${p.name} ${you} ${!!p.bot}` : g &&
                g.status ===
                'waiting' ? 'waiting' : '';
            if (el.dataset.key !== key) {
                el.dataset.key = key;
                el.replaceChildren();
                if (p && p.bot) { // a bot account: "BOT" before it, as lichess
                    const t = document.createElement('span');
                    t.className = 'ptitle';
                    t.title = 'A bot account: a program plays';
                    t.textContent = 'BOT';
                    el.append(t, ' ');
                }
                if (p) {
                    const a = document.createElement('a');
                    a.href = `/p/${p.id}`;
                    a.className = 'plink';
                    a.textContent = p.name;
                    el.append(a);
                } else if (key === 'waiting') {
                    el.append('Waiting for an opponent…');
                }
            }
            // "(you)" beside the name, not in it: on a phone it goes under
            // the name with the other tags instead of taking its room
            bar.querySelector('.pyou').hidden = !you;
            // A guest may take an account's name: the server says which.
            const guest = !!(p && p.account === false);
            el.title = p ? `${W.colorName(color)}: ${p.name}${
                guest ? ' (a guest, not an account)' : ''}` : '';
            bar.querySelector('.pguest').hidden = !guest;
            // A rated game's players show their rating when seated.
            const rating = bar.querySelector('.prating');
            const rated = g && g.rated && p && typeof p.rating === 'number';
            rating.hidden = !rated;
            setText(rating, rated ? W.ratingText(p.rating, p.provisional)
                : '');
            rating.title = rated && p.provisional
                ? 'Provisional rating: too few rated games to be sure' : '';
            this.renderMaterial(bar.querySelector('.material'), color, diff);
            this.renderSignal(bar.querySelector('.signal'), color);
            this.renderLag(bar.querySelector('.lag'), color);
        }
        const kind = $('game-kind');
        kind.hidden = !g || !g.clock;
        if (g && g.clock)
            setText($('kind-text'), W.gameKindText(g.clock, g.rated));
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

    // Beside the clock: a seated player's signal, in bars from the round
    // trip of their connection as the server measured it (words.js
    // signalLevel); none for an empty seat.
    renderSignal(el, color) {
        const g = this.g;
        const seated = !!(g && g[color]);
        const rtt = seated && g.rtt ? g.rtt[color] : null;
        const level = seated ? W.signalLevel(rtt) : 0;
        el.hidden = !seated;
        el.dataset.level = String(level);
        const label = seated ? W.signalText(color, rtt) : '';
        if (el.getAttribute('aria-label') !== label) {
            el.setAttribute('aria-label', label);
            el.title = label;
        }
    }

    // Under the signal of the side that made the last move (live view):
    // the lag credit the server gave that move (moved's lag_ms), when it
    // is W.LAG_SHOWN_MS or more. It has a place of its own, so it never
    // takes a name's room. (A screen reader hears every credit with its
    // move in the move list.)
    renderLag(el, color) {
        const g = this.g;
        const ply = g ? g.ply : 0;
        const ms = g && g.viewPly === null && ply > 0 ? g.lags[ply] : 0;
        const mover = ply > 0 && g.toMove !== color && g.status !== 'waiting';
        const show = !!(mover && ms >= W.LAG_SHOWN_MS);
        el.hidden = !show;
        setText(el, show ? W.lagShort(ms) : '');
        el.title = show ? `The server gave ${W.colorName(color)} ${
            Math.round(ms)} ms back on the last move for network delay` : '';
    }

    // The status line above the board: whose move, what is queued, what
    // is browsed.
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
            const cls = `clock${longFaces(g.clock) ? ' long' : ''}${
                running ? ' running' : ''}${
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

    // The countdowns of a started game: a disconnected opponent's return,
    // the first move.
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
            const ms = g.firstMoveMs - (now - g.firstMoveAt);
            // (a correspondence game's days: "2 days", "5 h")
            const left = ms >= 3600000
                ? W.timeLeftText(ms).replace(/ left$/, '')
                : `${W.seconds(ms)} s`;
            const who = g.you === g.toMove ? 'You have'
                : `${W.colorName(g.toMove)} has`;
            parts.push(`${who} ${left} to make the first move, or the ` +
                       'game is aborted.');
        }
        return parts.join(' ');
    }
}

function setText(el, text) {
    if (el.textContent !== text)
        el.textContent = text;
}
