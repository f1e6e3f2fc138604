// mygames.js - the player's games in progress (PROTOCOL.md section 5,
// "Your games"): the list `my_games` answers at each welcome, kept
// current by the `moved`, `game_start` and `game_end` every connection of
// the player receives. Shown in the lobby and on the player's own page
// (/p/PID), those waiting for the player's move first with a "Your turn"
// mark. When an opponent moves while the player is elsewhere on the site
// (the lobby, a player's page, the leaderboard: not over another game):
// a notice; while the page is hidden (another tab), a browser
// notification (the permission is asked
// only when the player starts or accepts a correspondence game), and a
// mark on the favicon while a game waits for the move.

import * as W from './words.js';

const FAVICON = '/favicon.svg';
const FAVICON_TURN = '/favicon-turn.svg';

// A correspondence clock: a day or more a move (the server's rule).
export function isCorrespondence(clock) {
    return !!clock && clock.type === 'per_move' && clock.per_move_s >= 86400;
}

// Asks for the permission to notify, once, when a correspondence game is
// started or accepted (a click: browsers ask only on a gesture).
export function askToNotify(clock) {
    if (isCorrespondence(clock) && typeof Notification !== 'undefined' &&
        Notification.permission === 'default')
        Notification.requestPermission().catch(() => {});
}

export class MyGames {
    // ctx: send(msg, req), me(), toast(text, kind, action),
    // navigate(path), shownGame() -> the GID on screen or null,
    // changed() -> the views showing the list render it again.
    constructor(ctx) {
        this.ctx = ctx;
        this.games = new Map(); /* GID -> entry of my_games, updated */
    }

    request() {
        this.ctx.send({ t: 'my_games' }, { t: 'my_games', quiet: true });
    }

    forget() {
        this.games.clear();
        this.changed();
    }

    onMyGames(msg) {
        const now = performance.now();
        this.games = new Map(msg.games.map((g) => [g.game, { ...g, at: now }]));
        this.changed();
    }

    onGameStart() {
        this.request();
    }

    onGameEnd(msg) {
        if (this.games.delete(msg.game))
            this.changed();
    }

    // A move in one of our games: whose turn it is now, and the notice
    // when the opponent moved while the player is not looking at it.
    onMoved(msg) {
        const g = this.games.get(msg.game);
        if (!g || msg.ply <= g.ply)
            return;
        g.ply = msg.ply;
        const mover = msg.ply % 2 === 1 ? 'white' : 'black';
        g.your_turn = mover !== g.color;
        const toMove = g.your_turn ? g.color : W.other(g.color);
        if (msg.first_move_ms != null)
            g.left_ms = msg.first_move_ms;
        else if (msg.clocks && msg.clocks[`${toMove}_ms`] != null)
            g.left_ms = msg.clocks[`${toMove}_ms`];
        g.at = performance.now();
        this.changed();
        if (g.your_turn && (!this.ctx.shownGame() || document.hidden))
            this.notify(g, msg.san);
    }

    notify(g, san) {
        const text = `${g.opponent.name} played ${san}: your move ` +
            `(${W.clockLabel(g.clock)}).`;
        if (!this.ctx.shownGame()) /* (not over a game being played) */
            this.ctx.toast(text, 'info', {
                label: 'Play', run: () => this.ctx.navigate(`/g/${g.game}`),
            });
        if (document.hidden && typeof Notification !== 'undefined' &&
            Notification.permission === 'granted') {
            const n = new Notification('Your move', { body: text,
                                                     tag: g.game });
            n.onclick = () => {
                window.focus();
                this.ctx.navigate(`/g/${g.game}`);
                n.close();
            };
        }
    }

    waiting() {
        let n = 0;
        for (const g of this.games.values())
            n += g.your_turn ? 1 : 0;
        return n;
    }

    changed() {
        this.mark();
        this.ctx.changed();
    }

    // The favicon and title say a game waits for the player's move.
    mark() {
        const n = this.waiting();
        const icon = document.querySelector('link[rel="icon"]');
        const href = n > 0 ? FAVICON_TURN : FAVICON;
        if (icon && icon.getAttribute('href') !== href)
            icon.setAttribute('href', href);
        document.documentElement.dataset.yourTurn = String(n);
    }

    // The list items: our turn first, then the least time left.
    items() {
        const now = performance.now();
        const list = [...this.games.values()].sort((a, b) =>
            (b.your_turn - a.your_turn) ||
            (a.left_ms - (now - a.at)) - (b.left_ms - (now - b.at)));
        return list.map((g) => this.item(g, now));
    }

    item(g, now) {
        const li = document.createElement('li');
        li.className = g.your_turn ? 'mygame your-turn' : 'mygame';
        li.dataset.game = g.game;
        const a = document.createElement('a');
        a.href = `/g/${g.game}`;
        a.dataset.internal = '1';
        const what = document.createElement('span');
        what.className = 'mygame-what';
        what.textContent = `${W.clockLabel(g.clock)} against ${
            g.opponent.name}`;
        a.append(what);
        const mark = document.createElement('span');
        mark.className = g.your_turn ? 'turn-mark' : 'wait-mark';
        mark.textContent = g.your_turn ? 'Your turn' : 'Their turn';
        a.append(' ', mark);
        if (isCorrespondence(g.clock)) {
            const left = document.createElement('span');
            left.className = 'mygame-left';
            left.textContent = W.timeLeftText(g.left_ms - (now - g.at));
            a.append(' ', left);
        }
        li.append(a);
        return li;
    }
}
